import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { SheetError } from '../sheets/sheet-error.js';

/**
 * What makes two invocations "the same input": the same kind of run, written to the same store
 * (where it is served, and its id), from the same bytes (sha256 of each input file's content; for
 * a downloaded feed, of what was downloaded) and the same sheet of them. A re-run of the same
 * input continues the run that holds it, or is refused when it holds deltas already applied
 * (see inputRunDecision).
 */
export interface InputIdentity {
  /** sha256 (hex) over everything below: the key runs and the store's memory are found by. */
  key: string;
  kind: string;
  /** Where the run writes, as runs record it (`run.meta.target`). */
  target: string;
  storeId: string;
  /** The input as people know it (a file name or a feed's URL), for messages. */
  input: string;
  /** sha256 (hex) of the main input's bytes. */
  sha256: string;
  /** The sheet asked for (`--sheet`), if any. */
  sheet?: string | undefined;
}

export interface InputIdentityOptions {
  kind: string;
  target: string;
  storeId: string;
  /** The main input file (read for its hash). */
  file: string;
  /** How the input is named in messages (default: the file's base name). */
  shown?: string | undefined;
  sheet?: string | undefined;
  /** Further input files that shape the plan (products' `--options FILE`). */
  extraFiles?: readonly string[] | undefined;
  /**
   * Values besides the files that make it another input (messages: the template's name: the same
   * recipients with another template are other messages). None: the key is as it always was.
   */
  params?: readonly string[] | undefined;
}

/**
 * sha256 (hex) of a file's bytes, read in 1 MiB pieces. A path that is missing or not a regular
 * file (a FIFO would block the read) is the same SheetError the sheet reader gives (exit 2, "was
 * not found"), not a raw ENOENT: with --apply the input is hashed before it is read.
 */
export function fileSha256(file: string): string {
  const hash = createHash('sha256');
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new SheetError('file_not_found', `${file} was not found (or is not a file). Check the path.`, {
      file,
      cause: error,
    });
  }
  try {
    if (!fstatSync(fd).isFile())
      throw new SheetError(
        'file_not_found',
        `${file} is not a regular file (a pipe, socket, device or directory); pass the path of a sheet file.`,
        { file },
      );
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** The identity of an input (see InputIdentity); reads each input file once. */
export function inputIdentity(options: InputIdentityOptions): InputIdentity {
  const sha256 = fileSha256(options.file);
  const extra = (options.extraFiles ?? []).map(fileSha256);
  const params = options.params ?? [];
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        'mbulk-input-1',
        options.kind,
        options.target,
        options.storeId,
        sha256,
        options.sheet ?? null,
        extra,
        // Only when given: the keys runs already recorded stay the same.
        ...(params.length > 0 ? [params] : []),
      ]),
    )
    .digest('hex');
  return {
    key,
    kind: options.kind,
    target: options.target,
    storeId: options.storeId,
    input: options.shown ?? basename(options.file),
    sha256,
    ...(options.sheet !== undefined ? { sheet: options.sheet } : {}),
  };
}

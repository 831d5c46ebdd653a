import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { SheetError } from './sheet-error.js';

/** Text encodings the CSV reader understands. */
export type SheetEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export const SHEET_ENCODINGS: readonly SheetEncoding[] = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'];

export interface SniffedEncoding {
  /** The encoding of the file, or null when it must be decided by validating the whole file (no BOM). */
  encoding: SheetEncoding | null;
  /** Bytes to skip at the start (the byte order mark). */
  bomLength: number;
  /** How the encoding was found, for messages. */
  reason: 'bom' | 'nul-pattern' | 'none';
}

const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];
const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function startsWith(head: Uint8Array, signature: readonly number[]): boolean {
  if (head.length < signature.length) return false;
  return signature.every((byte, i) => head[i] === byte);
}

/**
 * Looks at the first bytes of a file given as CSV: byte order marks, UTF-16 without a BOM
 * (recognised by its pattern of NUL bytes), and binary files (ZIP/XLSX, old XLS, NUL bytes),
 * which are refused with a message saying what the file probably is.
 */
export function sniffEncoding(head: Uint8Array, file: string): SniffedEncoding {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf)
    return { encoding: 'utf-8', bomLength: 3, reason: 'bom' };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bomLength: 2, reason: 'bom' };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bomLength: 2, reason: 'bom' };
  if (startsWith(head, ZIP_SIGNATURE)) {
    throw new SheetError(
      'binary_csv',
      `${file} is not a CSV file: it is a ZIP archive, which is what an XLSX workbook is. If it is a workbook, rename it to .xlsx; otherwise export the sheet as CSV.`,
      { file },
    );
  }
  if (startsWith(head, CFB_SIGNATURE)) {
    throw new SheetError(
      'binary_csv',
      `${file} is not a CSV file: it is an old-style Excel (.xls) or password-protected workbook. Open it in a spreadsheet program and save it as "CSV UTF-8" or as .xlsx without a password.`,
      { file },
    );
  }
  let nul = 0;
  let nulEven = 0;
  for (let i = 0; i < head.length; i++) {
    if (head[i] === 0) {
      nul++;
      if (i % 2 === 0) nulEven++;
    }
  }
  if (nul === 0) return { encoding: null, bomLength: 0, reason: 'none' };
  // UTF-16 text without a BOM: mostly ASCII, so one byte of every pair is NUL, always on the same side.
  const pairs = Math.floor(head.length / 2);
  if (pairs >= 2 && head.length % 2 === 0 && nul >= pairs * 0.3) {
    // Characters outside Latin-1 (CJK, surrogates) may put a NUL on the other side now and then.
    const nulOdd = nul - nulEven;
    if (nulOdd >= nul * 0.9) return { encoding: 'utf-16le', bomLength: 0, reason: 'nul-pattern' };
    if (nulEven >= nul * 0.9) return { encoding: 'utf-16be', bomLength: 0, reason: 'nul-pattern' };
  }
  throw new SheetError(
    'binary_csv',
    `${file} does not look like a CSV file: it contains NUL bytes, so it is binary (a workbook, a PDF, an image…). Export the sheet from its program as "CSV UTF-8".`,
    { file },
  );
}

/** Length of the complete UTF-8 prefix of `buf` (a multi-byte sequence cut at the end is left out). */
function completeUtf8Length(buf: Buffer): number {
  const len = buf.length;
  for (let back = 1; back <= 3 && back <= len; back++) {
    const b = buf[len - back] as number;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? len - back : len;
  }
  return len;
}

/** Offset of the first byte that is not valid UTF-8 (the buffer is known to be invalid). */
function firstInvalidUtf8(buf: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lo = 0;
  let hi = buf.length;
  // Binary search for the longest valid prefix; a cut inside a sequence is accepted by completeUtf8Length.
  while (hi - lo > 4) {
    const mid = (lo + hi) >>> 1;
    const slice = buf.subarray(0, completeUtf8Length(buf.subarray(0, mid)));
    try {
      decoder.decode(slice);
      lo = mid;
    } catch {
      hi = mid;
    }
  }
  return lo;
}

function countByte(buf: Buffer, byte: number, end: number): number {
  let count = 0;
  let i = buf.indexOf(byte);
  while (i !== -1 && i < end) {
    count++;
    i = buf.indexOf(byte, i + 1);
  }
  return count;
}

/** Line breaks before `end`: LF (also the LF of CRLF), or CR in old-Mac files without any LF. */
function countLines(buf: Buffer, end: number): number {
  const lf = countByte(buf, 0x0a, end);
  return lf > 0 ? lf : countByte(buf, 0x0d, end);
}

export type Utf8Check = { valid: true } | { valid: false; line: number };

/**
 * Checks that a whole file (from `start`) is valid UTF-8, reading it once in 1 MiB chunks with
 * Node's native validator (several GB/s). Used for files without a BOM, so that the encoding is
 * decided before any row is read: a file that is not entirely valid UTF-8 is read as Windows-1252.
 */
export async function checkUtf8File(path: string, start: number): Promise<Utf8Check> {
  let carry: Buffer = Buffer.alloc(0);
  let lines = 0;
  for await (const chunk of createReadStream(path, { start, highWaterMark: 1 << 20 })) {
    const buf: Buffer = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    const end = completeUtf8Length(buf);
    const body = buf.subarray(0, end);
    if (!isUtf8(body)) {
      const at = firstInvalidUtf8(body);
      return { valid: false, line: lines + countLines(body, at) + 1 };
    }
    lines += countLines(body, body.length);
    carry = Buffer.from(buf.subarray(end));
  }
  if (carry.length > 0) return { valid: false, line: lines + 1 };
  return { valid: true };
}

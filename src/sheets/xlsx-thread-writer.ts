import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  assertSheetSpec,
  type SheetHandle,
  type SheetSpec,
  type SheetWriter,
  type SheetWriterOptions,
} from './sheet-writer.js';
import { MAX_ROWS, XlsxRowXml } from './xlsx-row-xml.js';
import type { FromXlsxThread, ThreadError, ToXlsxThread, XlsxThreadData } from './xlsx-thread-protocol.js';

/** Rows' XML gathered per sheet before it is sent to the worker (bytes of UTF-8). */
const BATCH = 256 * 1024;
/** Rows' XML sent and not yet written by the worker before `write` asks its caller to wait (bytes). */
const MAX_IN_FLIGHT = 2 * 1024 * 1024;

/** Chunks kept for reuse, at most (more are in use only while the worker falls behind). */
const MAX_POOLED = 16;

/**
 * The worker's entry beside this module: `.ts` when run from the sources (tsx, vitest), the
 * bundle's `xlsx-thread-worker.cjs` beside dist/bundle/main.cjs (scripts/bundle-cli.mjs), or the
 * library's dist/sheets/xlsx-thread-worker.js. Null when it is not there (a bundler that did not
 * copy it): the workbook is then written on the calling thread.
 */
export function xlsxThreadEntry(): URL | null {
  const here = import.meta.url;
  const name = here.endsWith('.ts')
    ? './xlsx-thread-worker.ts'
    : here.endsWith('.cjs')
      ? './xlsx-thread-worker.cjs'
      : './xlsx-thread-worker.js';
  const entry = new URL(name, here);
  return entry.protocol === 'file:' && existsSync(fileURLToPath(entry)) ? entry : null;
}

function startWorker(entry: URL, data: XlsxThreadData): Worker {
  // From the sources Node runs no TypeScript: xlsx-thread-boot.mjs registers tsx's loader first.
  const file = entry.pathname.endsWith('.ts') ? new URL('./xlsx-thread-boot.mjs', entry) : entry;
  return new Worker(file, { workerData: data });
}

/** The requests the worker answers, less their id. */
type ThreadCall =
  { op: 'addSheet'; spec: SheetSpec } | { op: 'end'; sheet: number } | { op: 'close' } | { op: 'abort' };

function rebuild(error: ThreadError): Error {
  const made = error.name === 'RangeError' ? new RangeError(error.message) : new Error(error.message);
  if (error.code !== undefined) Object.assign(made, { code: error.code });
  return made;
}

/**
 * XLSX with the workbook written in a worker thread (node:worker_threads): the calling thread makes
 * each data row's sheet XML (XlsxRowXml, the same bytes as XlsxSheetWriter's), gathers a sheet's
 * rows into pieces of ~256 KB and sends them; the worker runs an XlsxSheetWriter on them (exceljs,
 * the spool files, the zip and its CRC-32). The file is the same, byte for byte, as
 * XlsxSheetWriter's on the calling thread. `write` asks its caller to wait while more than ~2 MB of
 * XML is on its way. A worker that fails or stops fails the next call with `cannot write <path>:`
 * and why; its temporary files are removed and the target is left as it was.
 */
export class XlsxThreadWriter implements SheetWriter {
  private readonly worker: Worker;
  private readonly calls = new Map<
    number,
    { resolve: (styleAttrs?: string[]) => void; reject: (e: Error) => void }
  >();
  private nextId = 1;
  private inFlight = 0;
  /** Chunks the worker gave back, to be filled again (XlsxThreadSheet.flush). */
  private readonly chunks: ArrayBuffer[] = [];
  private waiters: (() => void)[] = [];
  private failure: Error | null = null;
  /** Set once close or abort is done with the worker: its exit is then expected. */
  private finished = false;
  private readonly sheets: XlsxThreadSheet[] = [];
  private files: { tmp?: string; spoolDir?: string } = {};
  private closing: Promise<void> | null = null;
  private readonly exited: Promise<void>;
  /** The worker has exited. */
  private dead = false;

  constructor(
    readonly path: string,
    private readonly options: SheetWriterOptions,
    entry: URL,
  ) {
    this.worker = startWorker(entry, {
      path,
      currencyDecimals: options.currencyDecimals,
      ...(options.timezone === undefined ? {} : { timezone: options.timezone }),
    });
    this.worker.on('message', (message: FromXlsxThread) => this.receive(message));
    this.worker.on('error', (error) => this.fail(`the XLSX writer's thread failed: ${error.message}`));
    this.exited = new Promise<void>((resolve) => {
      this.worker.once('exit', (code) => {
        this.dead = true;
        if (!this.finished) this.fail(`the XLSX writer's thread stopped (exit code ${code})`);
        resolve();
      });
    });
  }

  private receive(message: FromXlsxThread): void {
    switch (message.op) {
      case 'files':
        this.files = { tmp: message.tmp, ...(message.spoolDir ? { spoolDir: message.spoolDir } : {}) };
        return;
      case 'ack':
        this.inFlight -= message.bytes;
        if (this.inFlight <= MAX_IN_FLIGHT / 2) this.wake();
        return;
      case 'chunk':
        if (message.bytes.byteLength === BATCH && this.chunks.length < MAX_POOLED)
          this.chunks.push(message.bytes);
        return;
      case 'failed':
        this.failure ??= rebuild(message.error);
        this.wake();
        return;
      case 'done': {
        const call = this.calls.get(message.id);
        this.calls.delete(message.id);
        if (!call) return;
        if (message.error) call.reject(rebuild(message.error));
        else call.resolve(message.styleAttrs);
      }
    }
  }

  /** The worker is gone (crashed, or stopped): every call fails from now on. */
  private fail(reason: string): void {
    this.failure ??= new Error(`cannot write ${this.path}: ${reason}`);
    for (const call of this.calls.values()) call.reject(this.failure);
    this.calls.clear();
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** A request the worker answers (`done`); with the worker gone, its failure. */
  private call(message: ThreadCall): Promise<string[] | undefined> {
    if (this.dead)
      return Promise.reject(
        this.failure ?? new Error(`cannot write ${this.path}: the XLSX writer's thread stopped`),
      );
    const id = this.nextId++;
    return new Promise<string[] | undefined>((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id } satisfies ToXlsxThread);
    });
  }

  /**
   * Sends `rows` rows of a sheet, the first `length` bytes of `chunk` (their XML in UTF-8; the chunk
   * is moved to the worker, not copied); a promise when the caller should wait for the worker.
   */
  post(sheet: number, chunk: Uint8Array, length: number, rows: number): void | Promise<void> {
    this.throwIfFailed();
    this.inFlight += length;
    const message: ToXlsxThread = { op: 'rows', sheet, bytes: chunk.buffer as ArrayBuffer, length, rows };
    this.worker.postMessage(message, [chunk.buffer as ArrayBuffer]);
    if (this.inFlight <= MAX_IN_FLIGHT) return undefined;
    return new Promise<void>((resolve) => this.waiters.push(resolve)).then(() => this.throwIfFailed());
  }

  /** An empty chunk of BATCH bytes for a sheet's rows. */
  newChunk(): Uint8Array {
    const given = this.chunks.pop();
    return given ? new Uint8Array(given) : new Uint8Array(BATCH);
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  async addSheet(spec: SheetSpec, _path?: string): Promise<SheetHandle> {
    this.throwIfFailed();
    if (this.closing) throw new Error('addSheet after close');
    assertSheetSpec(spec);
    const styleAttrs = await this.call({ op: 'addSheet', spec });
    const xml = new XlsxRowXml(
      spec,
      styleAttrs ?? [],
      this.options.timezone ?? 'UTC',
      this.options.currencyDecimals,
    );
    const sheet = new XlsxThreadSheet(this, this.sheets.length, spec, xml);
    this.sheets.push(sheet);
    return sheet;
  }

  end(sheet: number): Promise<void> {
    return this.call({ op: 'end', sheet }).then(() => undefined);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        this.throwIfFailed();
        for (const sheet of this.sheets) {
          const wait = sheet.flush();
          if (wait) await wait;
        }
        await this.call({ op: 'close' });
      } catch (error) {
        await this.discard();
        throw error;
      }
      await this.stop();
    })();
    return this.closing;
  }

  /** Discards the workbook being written; the target file is left as it was. */
  abort(): Promise<void> {
    this.closing ??= (async () => {
      this.failure ??= new Error('export aborted');
      await this.discard();
    })();
    return this.closing.catch(() => undefined);
  }

  /** Has the worker drop the workbook (or, if it is gone, removes its temporary files), then stops it. */
  private async discard(): Promise<void> {
    if (!this.dead) await Promise.race([this.call({ op: 'abort' }).catch(() => undefined), this.exited]);
    await this.stop();
    // Whatever the worker could not remove (it stopped first).
    if (this.files.tmp !== undefined) await rm(this.files.tmp, { force: true }).catch(() => undefined);
    if (this.files.spoolDir !== undefined)
      await rm(this.files.spoolDir, { recursive: true, force: true }).catch(() => undefined);
  }

  private async stop(): Promise<void> {
    this.finished = true;
    await this.worker.terminate();
    await this.exited;
  }
}

class XlsxThreadSheet implements SheetHandle {
  rowsWritten = 0;
  readonly path: string;
  /** Rows' XML encoded as UTF-8 (`used` bytes), sent whole: its memory moves to the worker. */
  private chunk: Uint8Array;
  private used = 0;
  private buffered = 0;
  private ended: Promise<void> | null = null;

  constructor(
    private readonly book: XlsxThreadWriter,
    readonly index: number,
    readonly spec: SheetSpec,
    private readonly xml: XlsxRowXml,
  ) {
    this.path = book.path;
    this.chunk = book.newChunk();
  }

  write(row: Readonly<Record<string, unknown>>): void | Promise<void> {
    if (this.ended) throw new Error(`sheet ${this.spec.name}: write after end`);
    this.book.throwIfFailed();
    if (this.rowsWritten + 1 >= MAX_ROWS) {
      throw new RangeError(
        `sheet ${this.spec.name}: more than ${MAX_ROWS - 1} rows do not fit in one XLSX sheet`,
      );
    }
    const xml = this.xml.rowXml(row, this.rowsWritten + 2);
    this.rowsWritten++;
    // At most 3 bytes of UTF-8 per UTF-16 code unit: whatever does not surely fit goes in a new piece.
    let wait: void | Promise<void> = undefined;
    if (xml.length * 3 > this.chunk.length - this.used) {
      wait = this.flush();
      if (xml.length * 3 > this.chunk.length) this.chunk = new Uint8Array(xml.length * 3);
    }
    this.used += encoder.encodeInto(xml, this.chunk.subarray(this.used)).written;
    this.buffered++;
    return wait;
  }

  /** Sends the rows gathered so far. */
  flush(): void | Promise<void> {
    if (this.buffered === 0) return undefined;
    const chunk = this.chunk;
    const bytes = this.used;
    const rows = this.buffered;
    this.chunk = this.book.newChunk();
    this.used = 0;
    this.buffered = 0;
    return this.book.post(this.index, chunk, bytes, rows);
  }

  end(): Promise<void> {
    this.ended ??= (async () => {
      const wait = this.flush();
      if (wait) await wait;
      await this.book.end(this.index);
    })();
    return this.ended;
  }
}

const encoder = new TextEncoder();

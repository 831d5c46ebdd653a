import type { SheetSpec } from './sheet-writer.js';

/**
 * The messages between XlsxThreadWriter (the calling thread) and its worker thread
 * (xlsx-thread-worker.ts), which runs an XlsxSheetWriter on the rows' XML it is sent.
 */

/** The worker's `workerData`: the workbook's path and what its sheets' formats depend on. */
export interface XlsxThreadData {
  path: string;
  currencyDecimals: number;
  timezone?: string;
}

/** Calling thread to worker. `rows` are acknowledged (`ack`), the others answered (`done`) by `id`. */
export type ToXlsxThread =
  | { op: 'addSheet'; id: number; spec: SheetSpec }
  /** `rows` rows: their XML, the first `length` bytes of `bytes` (UTF-8, transferred). */
  | { op: 'rows'; sheet: number; bytes: ArrayBuffer; length: number; rows: number }
  | { op: 'end'; id: number; sheet: number }
  | { op: 'close'; id: number }
  | { op: 'abort'; id: number };

/** An error as it crosses the threads. */
export interface ThreadError {
  name: string;
  message: string;
  code?: string;
}

/** Worker to calling thread. */
export type FromXlsxThread =
  /** The temporary file the workbook is written to (removed by the caller if the thread dies). */
  | { op: 'files'; tmp: string; spoolDir?: string }
  | { op: 'done'; id: number; styleAttrs?: string[]; error?: ThreadError }
  /** `bytes` of rows' XML written (or dropped after a failure). */
  | { op: 'ack'; bytes: number }
  /** A chunk of `rows` given back once written, to be filled again. */
  | { op: 'chunk'; bytes: ArrayBuffer }
  /** Writing rows failed: the next call fails with this. */
  | { op: 'failed'; error: ThreadError };

export function threadError(error: unknown): ThreadError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}

import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { pipeline, Readable, Transform } from 'node:stream';
import { createInflateRaw, inflateRawSync } from 'node:zlib';
import { formatBytes } from './sheet-limits.js';
import { MbulkError } from '../errors/mbulk-error.js';

/** One entry of a ZIP file's central directory. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

/** The XLSX file's zip structure cannot be read. */
export class ZipFormatError extends MbulkError {
  static override readonly errorName: string = 'ZipFormatError';
  constructor(message: string) {
    super('failed', message);
  }
}

/** How far one part of a ZIP may inflate. */
export interface PartLimits {
  /** Most bytes once inflated. */
  maxBytes: number;
  /** Highest inflated/compressed ratio. */
  maxRatio: number;
}

const DEFAULT_PART_LIMITS: PartLimits = { maxBytes: 64 * 1024 * 1024, maxRatio: 200 };

/**
 * A part refused by a PartLimits limit: `what` says how, in words, with the limit. Input that
 * cannot be read safely (exit 2); the XLSX reader turns it into a SheetError naming the file.
 */
export class ZipLimitError extends MbulkError {
  static override readonly errorName: string = 'ZipLimitError';
  constructor(
    readonly part: string,
    readonly limit: 'size' | 'ratio',
    readonly what: string,
    readonly limits: PartLimits,
  ) {
    super('usage', `${part} ${what}`);
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/**
 * Size of the inflated chunks handed to the XML parser. Each chunk's rows are alive together
 * until it is processed: 16-64 KiB keeps them young (cheap GC); 1 MiB chunks made the XLSX
 * reader 2-3x slower on wide sheets.
 */
const INFLATE_CHUNK = 32 * 1024;
/** Inflated bytes of a part before its compression ratio is checked (small parts compress well). */
const RATIO_GRACE = 1024 * 1024;

/**
 * A minimal random-access ZIP reader: the central directory (at the end of the file) lists the
 * parts, and each part is read or streamed from its own offset. Used for XLSX instead of a single
 * forward pass over the archive: the parts an XLSX sheet depends on (shared strings, styles) can
 * be read before the sheet whatever their order in the file, nothing is spilled to temp files,
 * and no part can be skipped (exceljs's forward pass drops entries under load: exceljs#2790, #3064).
 */
export class ZipDirectory {
  private constructor(
    private readonly path: string,
    private readonly handle: FileHandle,
    readonly entries: Map<string, ZipEntry>,
  ) {}

  static async open(path: string): Promise<ZipDirectory> {
    const handle = await open(path, 'r');
    try {
      const entries = await readCentralDirectory(handle);
      return new ZipDirectory(path, handle, entries);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Where an entry's compressed data starts (after its local header). */
  private async dataStart(name: string, entry: ZipEntry): Promise<number> {
    const header = Buffer.alloc(30);
    await this.handle.read(header, 0, 30, entry.localHeaderOffset);
    if (header.readUInt32LE(0) !== LOCAL_SIGNATURE) throw new ZipFormatError(`bad local header for ${name}`);
    return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  }

  /**
   * A stream of a part's uncompressed bytes (1 MiB reads), or null when there is no such part,
   * refusing a part that inflates past `limits.maxBytes`, or past `limits.maxRatio`
   * times its compressed size (a zip bomb): first by the sizes the directory declares, before
   * reading; then by the bytes actually inflated, as they come, since declared sizes can lie. The
   * ratio is checked against the compressed bytes inflated so far, not the part's total,
   * so a bomb is stopped within its first megabytes: the rule of Apache POI's ZipSecureFile
   * (100× past 100 KiB there; ours is looser, 200× past 1 MiB by default);
   * the first MiB of a part is not checked (tiny parts compress well). The stream fails with a
   * ZipLimitError naming the part and the limit.
   */
  async streamBounded(name: string, limits: PartLimits): Promise<Readable | null> {
    const entry = this.entries.get(name);
    if (!entry) return null;
    checkDeclared(name, entry, limits);
    const start = await this.dataStart(name, entry);
    if (entry.compressedSize === 0) return Readable.from([]);
    if (entry.method !== 0 && entry.method !== 8) {
      throw new ZipFormatError(`${name} uses unsupported compression method ${entry.method}`);
    }
    const raw = createReadStream(this.path, {
      start,
      end: start + entry.compressedSize - 1,
      highWaterMark: 1 << 20,
    });
    if (entry.method === 0) return raw; // stored: its size is its compressed size, checked above
    const inflate = createInflateRaw({ chunkSize: INFLATE_CHUNK });
    let inflated = 0;
    const guard = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        inflated += chunk.length;
        // zlib's bytesWritten: the compressed bytes inflate has consumed to produce this output.
        const compressed = inflate.bytesWritten;
        if (inflated > limits.maxBytes) {
          done(
            new ZipLimitError(
              name,
              'size',
              `inflates past the limit of ${formatBytes(limits.maxBytes)}`,
              limits,
            ),
          );
        } else if (inflated > RATIO_GRACE && inflated > limits.maxRatio * compressed) {
          done(
            new ZipLimitError(
              name,
              'ratio',
              `inflates more than ${limits.maxRatio}× (the limit) its compressed size: ${formatBytes(inflated)} from the first ${formatBytes(compressed)}`,
              limits,
            ),
          );
        } else done(null, chunk);
      },
    });
    return pipeline(raw, inflate, guard, () => {});
  }

  /**
   * The uncompressed bytes of a (small) entry, or null when there is no such entry; refused with
   * a ZipLimitError past `limits` (declared or actual size, compression ratio).
   */
  async read(name: string, limits: PartLimits = DEFAULT_PART_LIMITS): Promise<Buffer | null> {
    const entry = this.entries.get(name);
    if (!entry) return null;
    checkDeclared(name, entry, limits);
    const dataStart = await this.dataStart(name, entry);
    const data = Buffer.alloc(entry.compressedSize);
    await this.handle.read(data, 0, entry.compressedSize, dataStart);
    if (entry.method === 0) return data;
    if (entry.method !== 8) {
      throw new ZipFormatError(`${name} uses unsupported compression method ${entry.method}`);
    }
    const cap = Math.min(limits.maxBytes, Math.max(RATIO_GRACE, limits.maxRatio * entry.compressedSize));
    try {
      return inflateRawSync(data, { maxOutputLength: cap });
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_BUFFER_TOO_LARGE') throw error;
      throw cap < limits.maxBytes
        ? new ZipLimitError(
            name,
            'ratio',
            `inflates more than ${limits.maxRatio}× (the limit) its compressed size`,
            limits,
          )
        : new ZipLimitError(
            name,
            'size',
            `inflates past the limit of ${formatBytes(limits.maxBytes)}`,
            limits,
          );
    }
  }
}

/** Refuses a part by the sizes its directory entry gives (cheap, before any reading). */
function checkDeclared(name: string, entry: ZipEntry, limits: PartLimits): void {
  if (entry.compressedSize > limits.maxBytes) {
    throw new ZipLimitError(
      name,
      'size',
      `is ${formatBytes(entry.compressedSize)} compressed, over the limit of ${formatBytes(limits.maxBytes)} inflated`,
      limits,
    );
  }
  if (entry.uncompressedSize > limits.maxBytes) {
    throw new ZipLimitError(
      name,
      'size',
      `declares ${formatBytes(entry.uncompressedSize)} once inflated, over the limit of ${formatBytes(limits.maxBytes)}`,
      limits,
    );
  }
  if (
    entry.uncompressedSize > RATIO_GRACE &&
    entry.uncompressedSize > limits.maxRatio * entry.compressedSize
  ) {
    throw new ZipLimitError(
      name,
      'ratio',
      `declares a compression ratio of ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))}×, over the limit of ${limits.maxRatio}×`,
      limits,
    );
  }
}

async function readCentralDirectory(handle: FileHandle): Promise<Map<string, ZipEntry>> {
  const { size } = await handle.stat();
  const tailLength = Math.min(size, 65_535 + 22 + 20);
  const tail = Buffer.alloc(tailLength);
  await handle.read(tail, 0, tailLength, size - tailLength);
  let eocd = -1;
  for (let i = tailLength - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipFormatError('no end of central directory record');
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  if ((cdOffset === 0xffffffff || count === 0xffff) && eocd >= 20) {
    const locator = eocd - 20;
    if (tail.readUInt32LE(locator) === ZIP64_LOCATOR_SIGNATURE) {
      const record = Buffer.alloc(56);
      await handle.read(record, 0, 56, Number(tail.readBigUInt64LE(locator + 8)));
      count = Number(record.readBigUInt64LE(32));
      cdSize = Number(record.readBigUInt64LE(40));
      cdOffset = Number(record.readBigUInt64LE(48));
    }
  }
  if (cdOffset + cdSize > size) throw new ZipFormatError('central directory outside the file');
  const cd = Buffer.alloc(cdSize);
  await handle.read(cd, 0, cdSize, cdOffset);
  const entries = new Map<string, ZipEntry>();
  let p = 0;
  for (let i = 0; i < count && p + 46 <= cd.length; i++) {
    if (cd.readUInt32LE(p) !== CENTRAL_SIGNATURE) throw new ZipFormatError('bad central directory entry');
    const method = cd.readUInt16LE(p + 10);
    let compressedSize = cd.readUInt32LE(p + 20);
    let uncompressedSize = cd.readUInt32LE(p + 24);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    let localHeaderOffset = cd.readUInt32LE(p + 42);
    const name = cd.toString('utf8', p + 46, p + 46 + nameLength);
    // ZIP64 extra field: 64-bit sizes/offset for the fields set to 0xffffffff, in this order.
    let e = p + 46 + nameLength;
    const extraEnd = e + extraLength;
    while (e + 4 <= extraEnd) {
      const id = cd.readUInt16LE(e);
      const len = cd.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        if (uncompressedSize === 0xffffffff) {
          uncompressedSize = Number(cd.readBigUInt64LE(q));
          q += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = Number(cd.readBigUInt64LE(q));
          q += 8;
        }
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = Number(cd.readBigUInt64LE(q));
      }
      e += 4 + len;
    }
    entries.set(name.replace(/\\/g, '/'), {
      name,
      method,
      compressedSize,
      uncompressedSize,
      localHeaderOffset,
    });
    p = extraEnd + commentLength;
  }
  return entries;
}

import { createReadStream } from 'node:fs';

/** What the reader hands over: each element of a streamed array, and every other member whole. */
export interface JsonObjectSink {
  /** One element of the array under `key` (one of the streamed keys), in order; `at`: its first byte. */
  element(key: string, value: unknown, index: number, at: number): void;
  /** A member of the top-level object that is not streamed, parsed whole; `at`: its first byte. */
  member(key: string, value: unknown, at: number): void;
  /** A streamed key's array begins (so an empty array is seen too). */
  arrayStart?(key: string): void;
}

/** The document is not JSON, or not an object at its top level; `at` is the byte offset. */
export class JsonStreamError extends Error {
  constructor(
    message: string,
    readonly at: number,
    /** The top-level member at fault, when there is one. */
    readonly member?: string,
  ) {
    super(`${message} at byte ${at}`);
  }
}

/** The document is JSON but breaks one of the reader's limits (a cap, the nesting, a key). */
export class JsonLimitError extends JsonStreamError {}

/**
 * Bounds on what the reader holds, so a hostile or damaged file fails fast in little memory
 * instead of being buffered and parsed whole: a member's (or a streamed element's) bytes, the
 * nesting of any value, a key's length, and which top-level keys may appear at all.
 */
export interface JsonObjectLimits {
  /** Deepest nesting allowed (the top-level object is depth 1, a member's own array or object 2). */
  maxDepth: number;
  /** Most bytes of the value under top-level `key` (of each element, for a streamed key). */
  maxBytes(key: string): number;
  /** The top-level keys allowed (any other is an error at its first byte); all when absent. */
  keys?: ReadonlySet<string>;
}

/** Most bytes of a top-level key (the format's keys are a few characters). */
const MAX_KEY_BYTES = 256;

/** No bounds (for callers that trust the file). */
const UNBOUNDED: JsonObjectLimits = { maxDepth: Infinity, maxBytes: () => Infinity };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Reads a file holding one JSON object without ever holding it as one string (V8 strings stop at
 * ~512 MiB, and one string plus its parse is three times the file in memory): the bytes are scanned
 * for the object's structure, each element of the arrays named in `streamed` is cut out and parsed
 * on its own (`JSON.parse` does the real parsing and the validation of every value), and every
 * other top-level member is parsed whole. Memory is one element (plus a 1 MiB read buffer) above
 * what the sink keeps.
 */
export async function readJsonObject(
  path: string,
  streamed: ReadonlySet<string>,
  sink: JsonObjectSink,
  limits: JsonObjectLimits = UNBOUNDED,
): Promise<void> {
  const scanner = new JsonObjectScanner(streamed, sink, limits);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    scanner.push(chunk as Buffer);
  }
  scanner.end();
}

type Expect = 'open' | 'key' | 'colon' | 'value' | 'after' | 'done';

/** The byte scanner behind readJsonObject (push chunks, then end). */
export class JsonObjectScanner {
  private offset = 0;
  private depth = 0;
  private inString = false;
  /** Backslashes in a row at the end of the last chunk, inside a string. */
  private carriedBackslashes = 0;
  private expect: Expect = 'open';
  private key = '';
  private capturingKey = false;
  /** Inside a streamed array (depth 2 is its elements' level). */
  private streaming = false;
  private expectElement = false;
  /** Index of the next element of the streamed array. */
  private index = 0;
  /** Members of the top-level object read so far. */
  private members = 0;
  /** The value being cut out: pieces from earlier chunks, and where it starts in this one. */
  private pieces: Buffer[] = [];
  /** Bytes in `pieces`, and the offset in the document of the value's first byte. */
  private pieceBytes = 0;
  private startAt = 0;
  private start = -1;

  constructor(
    private readonly streamed: ReadonlySet<string>,
    private readonly sink: JsonObjectSink,
    private readonly limits: JsonObjectLimits = UNBOUNDED,
  ) {}

  push(buf: Buffer): void {
    const n = buf.length;
    let i = 0;
    while (i < n) {
      if (this.inString) {
        i = this.skipString(buf, i);
        continue;
      }
      const c = buf[i] as number;
      if (isSpace(c)) {
        i++;
        continue;
      }
      if (this.structural(buf, i, c)) this.nested(c, i);
      i++;
    }
    if (this.start >= 0) {
      const piece = buf.subarray(this.start);
      this.pieces.push(piece);
      this.pieceBytes += piece.length;
      this.start = 0;
      this.checkSize(this.pieceBytes);
    }
    this.offset += n;
  }

  end(): void {
    if (this.expect !== 'done') throw new JsonStreamError('unexpected end of the document', this.offset);
  }

  /** Moves past the string's closing quote (or to the chunk's end); returns the next index. */
  private skipString(buf: Buffer, from: number): number {
    let i = from;
    for (;;) {
      const q = buf.indexOf(QUOTE, i);
      if (q < 0) {
        // Count the backslashes this chunk ends with: an odd run escapes the next chunk's first byte.
        let run = 0;
        for (let k = buf.length - 1; k >= from && buf[k] === BACKSLASH; k--) run++;
        this.carriedBackslashes = run === buf.length - from ? this.carriedBackslashes + run : run;
        return buf.length;
      }
      let run = 0;
      for (let k = q - 1; k >= from && buf[k] === BACKSLASH; k--) run++;
      if (run === q - from) run += this.carriedBackslashes;
      this.carriedBackslashes = 0;
      if (run % 2 === 1) {
        i = q + 1;
        continue;
      }
      this.inString = false;
      if (this.capturingKey) {
        this.checkSize(this.pieceBytes + q + 1 - this.start);
        this.capturingKey = false;
        const at = this.startAt;
        this.key = JSON.parse(this.take(buf, q + 1)) as string;
        this.expect = 'colon';
        if (this.limits.keys !== undefined && !this.limits.keys.has(this.key))
          throw new JsonLimitError(`unknown member ${JSON.stringify(this.key)}`, at, this.key);
      }
      return q + 1;
    }
  }

  /**
   * The top-level object's own structure (keys, colons, commas) and the streamed arrays' elements.
   * Returns true when `c` belongs to a value being read (so nesting is tracked by `nested`).
   */
  private structural(buf: Buffer, i: number, c: number): boolean {
    if (this.depth === 0) {
      if (this.expect === 'done') throw this.error('unexpected content after the object', i);
      if (c !== 0x7b) throw this.error('the document is not one JSON object', i);
      this.depth = 1;
      this.expect = 'key';
      return false;
    }
    if (this.depth === 1) {
      switch (this.expect) {
        case 'key':
          if (c === QUOTE) {
            this.begin(i);
            this.capturingKey = true;
            this.inString = true;
            return false;
          }
          if (c === 0x7d && this.members === 0) return this.close();
          throw this.error('expected a key', i);
        case 'colon':
          if (c !== 0x3a) throw this.error('expected ":"', i);
          this.expect = 'value';
          return false;
        case 'value':
          this.expect = 'after';
          if (c === 0x5b && this.streamed.has(this.key)) {
            this.streaming = true;
            this.expectElement = true;
            this.index = 0;
            this.depth = 2;
            this.sink.arrayStart?.(this.key);
            this.checkDepth(i);
            return false;
          }
          this.begin(i);
          return true;
        case 'after':
          if (c === 0x2c || c === 0x7d) {
            if (this.start >= 0) {
              const at = this.startAt;
              this.sink.member(this.key, this.parse(buf, i), at);
            }
            this.members++;
            if (c === 0x2c) {
              this.expect = 'key';
              return false;
            }
            return this.close();
          }
          return true;
        default:
          throw this.error('unexpected state', i);
      }
    }
    if (this.depth === 2 && this.streaming) {
      if (c === 0x2c || c === 0x5d) {
        if (this.start >= 0) {
          const at = this.startAt;
          this.sink.element(this.key, this.parse(buf, i), this.index++, at);
        } else if (c === 0x2c || this.index > 0) throw this.error('expected an array element', i);
        if (c === 0x5d) {
          this.streaming = false;
          this.depth = 1;
        } else this.expectElement = true;
        return false;
      }
      if (this.expectElement) {
        this.expectElement = false;
        this.begin(i);
      }
    }
    return true;
  }

  private nested(c: number, i: number): void {
    if (c === QUOTE) this.inString = true;
    else if (c === 0x7b || c === 0x5b) {
      this.depth++;
      this.checkDepth(i);
    } else if (c === 0x7d || c === 0x5d) this.depth--;
  }

  private checkDepth(i: number): void {
    if (this.depth > this.limits.maxDepth)
      throw new JsonLimitError(
        `member "${this.key}" nests deeper than ${this.limits.maxDepth} levels`,
        this.offset + i,
        this.key,
      );
  }

  /** Fails once the value (or key) being cut out has more bytes than its cap. */
  private checkSize(bytes: number): void {
    const cap = this.capturingKey ? MAX_KEY_BYTES : this.limits.maxBytes(this.key);
    if (bytes <= cap) return;
    if (this.capturingKey) throw new JsonLimitError(`a key longer than ${cap} bytes`, this.startAt);
    const what = this.streaming ? `an element of "${this.key}"` : `member "${this.key}"`;
    throw new JsonLimitError(`${what} is over its cap of ${cap} bytes`, this.startAt, this.key);
  }

  private close(): false {
    this.depth = 0;
    this.expect = 'done';
    return false;
  }

  private begin(i: number): void {
    this.pieces = [];
    this.pieceBytes = 0;
    this.start = i;
    this.startAt = this.offset + i;
  }

  /** The captured bytes up to `end` (exclusive) as text; ends the capture. */
  private take(buf: Buffer, end: number): string {
    const last = buf.subarray(this.start, end);
    const text =
      this.pieces.length === 0
        ? last.toString('utf8')
        : Buffer.concat([...this.pieces, last]).toString('utf8');
    this.pieces = [];
    this.pieceBytes = 0;
    this.start = -1;
    return text;
  }

  private parse(buf: Buffer, end: number): unknown {
    const at = this.startAt;
    this.checkSize(this.pieceBytes + end - this.start);
    const text = this.take(buf, end);
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new JsonStreamError(`${(error as Error).message} (in ${this.key})`, at, this.key);
    }
  }

  private error(message: string, i: number): JsonStreamError {
    return new JsonStreamError(message, this.offset + i);
  }
}

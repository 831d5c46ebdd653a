import { AtomicFileSync, type AtomicFileOptions } from './atomic-file.js';

/** Pieces are written once this many characters wait. */
const FLUSH_AT = 1 << 20;

/** Containers this deep are walked piece by piece; deeper values are stringified whole. */
const WALK_DEPTH = 3;

/**
 * Writes `${JSON.stringify(value, null, 2)}\n` to `file` atomically (see AtomicFileSync), byte
 * for byte, without ever holding the whole text: the outer objects and arrays are walked and each
 * value below them is stringified on its own, so a plan of a million rows is written in pieces of
 * about a megabyte instead of one string of hundreds of megabytes (and its UTF-8 copy).
 */
export function writePrettyJsonAtomic(file: string, value: unknown, options: AtomicFileOptions = {}): void {
  const out = new AtomicFileSync(file, options);
  try {
    const writer = new PrettyJsonWriter((text) => out.write(text));
    const top = resolve(value, '');
    writer.text(hasJson(top) ? '' : 'undefined');
    if (hasJson(top)) writer.value(top, '', 0);
    writer.text('\n');
    writer.flush();
  } catch (error) {
    out.discard();
    throw error;
  }
  out.commit();
}

/** The text of `value` as JSON.stringify(value, null, 2) gives it, in pieces. */
export function prettyJsonPieces(value: unknown): string[] {
  const pieces: string[] = [];
  const writer = new PrettyJsonWriter((text) => pieces.push(text), 1);
  const top = resolve(value, '');
  if (hasJson(top)) writer.value(top, '', 0);
  writer.flush();
  return pieces;
}

class PrettyJsonWriter {
  private pending = '';

  constructor(
    private readonly sink: (text: string) => void,
    private readonly flushAt = FLUSH_AT,
  ) {}

  text(s: string): void {
    this.pending += s;
    if (this.pending.length >= this.flushAt) this.flush();
  }

  flush(): void {
    if (this.pending.length > 0) this.sink(this.pending);
    this.pending = '';
  }

  /** Writes one value (toJSON already applied, and with JSON: see hasJson) at `indent`. */
  value(v: unknown, indent: string, depth: number): void {
    if (depth >= WALK_DEPTH || v === null || typeof v !== 'object' || !isPlain(v)) {
      const s = JSON.stringify(v, null, 2);
      this.text(indent === '' ? s : s.replaceAll('\n', `\n${indent}`));
      return;
    }
    const inner = `${indent}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) {
        this.text('[]');
        return;
      }
      this.text('[');
      for (let i = 0; i < v.length; i++) {
        this.text(i === 0 ? `\n${inner}` : `,\n${inner}`);
        const item = resolve(v[i], String(i));
        if (hasJson(item)) this.value(item, inner, depth + 1);
        else this.text('null');
      }
      this.text(`\n${indent}]`);
      return;
    }
    let first = true;
    for (const k of Object.keys(v)) {
      const item = resolve((v as Record<string, unknown>)[k], k);
      // A member without JSON is left out.
      if (!hasJson(item)) continue;
      this.text(first ? `{\n${inner}${JSON.stringify(k)}: ` : `,\n${inner}${JSON.stringify(k)}: `);
      first = false;
      this.value(item, inner, depth + 1);
    }
    this.text(first ? '{}' : `\n${indent}}`);
  }
}

/** A value as JSON.stringify takes it: through its toJSON(key) when it has one. */
export function resolve(v: unknown, key: string): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
    return (v as { toJSON: (key: string) => unknown }).toJSON(key);
  return v;
}

/** Whether JSON.stringify writes a value for this (resolved) member. */
function hasJson(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

/** A plain array or object, walked here; anything else (a boxed value, a Map…) is left to JSON.stringify. */
function isPlain(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

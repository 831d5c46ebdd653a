import { createHash } from 'node:crypto';

/** How long a key replays its first response (spec: 24 hours). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A stored first response, replayed exactly for the same token + route + key. */
export interface IdempotencyRecord {
  /** sha256 of token, route and key (the token itself is never stored). */
  key: string;
  /** sha256 of the request body; another body with the same key is refused. */
  fingerprint: string;
  status: number;
  body: string;
  request_id: string;
  /** Epoch ms of the first request. */
  at: number;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The idempotency table of the sandbox (persisted with its state). */
export class IdempotencyTable {
  private readonly records = new Map<string, IdempotencyRecord>();

  constructor(records: readonly IdempotencyRecord[] = []) {
    for (const r of records) this.records.set(r.key, r);
  }

  static keyOf(token: string, route: string, idempotencyKey: string): string {
    return sha256(`${sha256(token)}\n${route}\n${idempotencyKey}`);
  }

  static fingerprintOf(body: string): string {
    return sha256(body);
  }

  /** The live record for `key`, dropping it when older than the window. */
  get(key: string, now = Date.now()): IdempotencyRecord | undefined {
    const r = this.records.get(key);
    if (r === undefined) return undefined;
    if (now - r.at >= IDEMPOTENCY_WINDOW_MS) {
      this.records.delete(key);
      return undefined;
    }
    return r;
  }

  set(record: IdempotencyRecord): void {
    this.records.set(record.key, record);
  }

  get size(): number {
    return this.records.size;
  }

  /** Records still inside the window (expired ones are dropped). */
  toJSON(now = Date.now()): IdempotencyRecord[] {
    const out: IdempotencyRecord[] = [];
    for (const [key, r] of this.records) {
      if (now - r.at >= IDEMPOTENCY_WINDOW_MS) this.records.delete(key);
      else out.push(r);
    }
    return out;
  }
}

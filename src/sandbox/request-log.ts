/** How a request ended, from the client's point of view and the store's. */
export type RequestOutcome =
  /** Served: the request acted (writes) or read. */
  | 'applied'
  /** Answered with a 4xx by the rules (auth, validation, not found): nothing changed. */
  | 'rejected'
  /** Idempotent replay of a stored first response: nothing changed. */
  | 'replayed'
  /** 429 from the rate limit, before acting. */
  | 'rate_limited'
  /** 500 from the fail rate, before acting. */
  | 'faulted_before'
  /** Connection closed before acting: nothing changed. */
  | 'dropped_before'
  /** Connection closed after committing: the change happened, the response was lost. */
  | 'dropped_after';

export interface RequestLogEntry {
  method: string;
  /** Path with query string. */
  path: string;
  /** HTTP status sent (or that would have been sent, for dropped_after; 0 for dropped_before). */
  status: number;
  idempotency_key: string | null;
  /** Time spent in the sandbox, including injected latency. */
  ms: number;
  outcome: RequestOutcome;
  request_id: string;
  /** ISO time the request arrived. */
  at: string;
  /** The connection was closed before the answer was sent (a `replayed` request keeps its outcome). */
  dropped?: 'after';
}

/** In-memory request log, capped (oldest entries are dropped first). */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  constructor(private readonly max = 100_000) {}

  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
  }

  list(): RequestLogEntry[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries = [];
  }
}

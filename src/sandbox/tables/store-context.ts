import { Clock } from '../clock.js';

/**
 * What every table of the sandbox store shares: the clock, the id and sequence counters (one of
 * each for the whole store, so ids and pagination order are store-wide), the base URL images are
 * re-hosted under, and the change notification.
 */
export class StoreContext {
  readonly clock: Clock;
  /** The sandbox's own URL (no trailing slash): image URLs under it are kept as they are. */
  baseUrl: string;
  idCounter: number;
  seqCounter: number;

  constructor(
    counters: { id: number; seq: number; clock: number },
    baseUrl: string,
    private readonly onChanged: () => void,
  ) {
    this.clock = new Clock(counters.clock);
    this.idCounter = counters.id;
    this.seqCounter = counters.seq;
    this.baseUrl = baseUrl;
  }

  /** The next free id `<prefix>_<base36 counter>`, skipping ids `taken` says exist. */
  newId(prefix: string, taken: (id: string) => boolean): string {
    for (;;) {
      const id = `${prefix}_${(++this.idCounter).toString(36).padStart(6, '0')}`;
      if (!taken(id)) return id;
    }
  }

  /** The next creation sequence number (pagination order). */
  nextSeq(): number {
    return ++this.seqCounter;
  }

  /** A loaded entity's sequence number: the saved one (the counter moves past it), else a new one. */
  loadedSeq(saved: number | undefined): number {
    const seq = saved ?? ++this.seqCounter;
    this.seqCounter = Math.max(this.seqCounter, seq);
    return seq;
  }

  /** Tells the persistence layer that something changed. */
  changed(): void {
    this.onChanged();
  }
}

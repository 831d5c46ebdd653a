/** Bytes of each block of a Utf8Blocks. */
const BLOCK = 16 << 20;

/**
 * Texts kept as UTF-8 outside the JavaScript heap, in blocks of 16 MiB: what the sandbox keeps of
 * each product (its JSON; 877 MB for 330,000 products). Outside the heap they cost no garbage
 * collector's work (a full collection of a heap of strings that size paused the sandbox for up to a
 * second) and no growth margin of the heap (it held ~280 MB more than its live objects). A text
 * rewritten no longer than it was stays in place; a longer one goes at the end (what it leaves is
 * not reused: a sandbox is rebuilt from its state file). Not src/plan's TextArena, which keeps
 * UTF-16 code units in one growing array for lookups by hash.
 */
export class Utf8Blocks {
  private readonly blocks: Buffer[] = [];
  /** Bytes used of the last block. */
  private used = BLOCK;

  /** Writes `text`, in place of the `bytes` at `at` when it fits there; returns its place. */
  write(text: string, at: number, bytes: number): { at: number; bytes: number } {
    const n = Buffer.byteLength(text, 'utf8');
    if (at >= 0 && n <= bytes) {
      const block = this.blocks[Math.floor(at / BLOCK)] as Buffer;
      block.write(text, at % BLOCK, 'utf8');
      return { at, bytes: n };
    }
    if (this.used + n > BLOCK) {
      this.blocks.push(Buffer.allocUnsafeSlow(Math.max(BLOCK, n)));
      this.used = 0;
    }
    const index = this.blocks.length - 1;
    (this.blocks[index] as Buffer).write(text, this.used, 'utf8');
    const place = { at: index * BLOCK + this.used, bytes: n };
    this.used += n;
    return place;
  }

  /** The text of `bytes` bytes at `at`. */
  read(at: number, bytes: number): string {
    if (bytes === 0) return '';
    const offset = at % BLOCK;
    return (this.blocks[Math.floor(at / BLOCK)] as Buffer).toString('utf8', offset, offset + bytes);
  }
}

/** Bytes of one block (a text longer than a block gets a block of its own). */
const BLOCK = 1 << 20;

/**
 * Texts kept as UTF-8 in blocks of a megabyte outside the JS heap, each known by one number (its
 * block and offset), and taken back once: a block is let go when every text in it was taken. The
 * packed products of a million-row sheet are hundreds of megabytes of short texts: as JS strings
 * each is a few heap objects (JSON.stringify returns a string of pieces), which every collection
 * walks and which outlive their use until one runs; here a block goes as soon as its products are
 * planned (products are mostly planned in the order they were read).
 */
export class PackedTexts {
  private readonly blocks: (Buffer | undefined)[] = [];
  /** Texts of each block not taken yet. */
  private readonly live: number[] = [];
  private used = BLOCK;

  /** Keeps `text`; the number returned takes it back (once). */
  add(text: string): number {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (this.used + 4 + bytes > (this.blocks.at(-1)?.length ?? 0)) {
      this.blocks.push(Buffer.allocUnsafeSlow(Math.max(BLOCK, 4 + bytes)));
      this.live.push(0);
      this.used = 0;
    }
    const index = this.blocks.length - 1;
    const block = this.blocks[index] as Buffer;
    const at = this.used;
    block.writeUInt32LE(bytes, at);
    block.write(text, at + 4, bytes, 'utf8');
    this.used = at + 4 + bytes;
    this.live[index] = (this.live[index] ?? 0) + 1;
    return index * BLOCK + at;
  }

  /** The text kept as `handle`, given back once: its block is let go with its last text. */
  take(handle: number): string {
    const index = Math.floor(handle / BLOCK);
    const at = handle - index * BLOCK;
    const block = this.blocks[index];
    if (block === undefined) throw new Error(`packed text ${handle} was already taken`);
    const bytes = block.readUInt32LE(at);
    const text = block.toString('utf8', at + 4, at + 4 + bytes);
    const left = (this.live[index] ?? 1) - 1;
    this.live[index] = left;
    // The block being filled stays: more texts go into it.
    if (left === 0 && index < this.blocks.length - 1) this.blocks[index] = undefined;
    return text;
  }

  /** Bytes held in blocks (for tests and benches). */
  get heldBytes(): number {
    let n = 0;
    for (const b of this.blocks) n += b?.length ?? 0;
    return n;
  }
}

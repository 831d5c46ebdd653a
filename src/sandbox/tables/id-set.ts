/**
 * The ids of one kind (variants, options) for StoreContext.newId's "taken" check, and their count.
 * Only ids the store could mint itself are kept: `<prefix>_` then its counter in base 36, padded to
 * six digits. Any other id (the generator's eight-digit ones, a seed's own) can never be minted,
 * so it is only counted: a sandbox of a million generated variants keeps no set of a million ids.
 */
export class IdSet {
  private readonly minted = new Set<string>();
  private count = 0;

  constructor(private readonly prefix: string) {}

  get size(): number {
    return this.count;
  }

  /** Whether newId could return `id` (then it is kept). */
  private mintable(id: string): boolean {
    if (!id.startsWith(`${this.prefix}_`)) return false;
    const digits = id.slice(this.prefix.length + 1);
    if (!/^[0-9a-z]{6,}$/.test(digits)) return false;
    const n = Number.parseInt(digits, 36);
    return Number.isSafeInteger(n) && n.toString(36).padStart(6, '0') === digits;
  }

  add(id: string): void {
    this.count++;
    if (this.mintable(id)) this.minted.add(id);
  }

  delete(id: string): void {
    this.count--;
    this.minted.delete(id);
  }

  /** Takes in another set's ids (a load's). */
  absorb(other: IdSet): void {
    this.count += other.count;
    for (const id of other.minted) this.minted.add(id);
  }

  /** Whether a mintable id is taken (the only ids newId asks about). */
  has(id: string): boolean {
    return this.minted.has(id);
  }
}

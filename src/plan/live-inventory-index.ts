import type { Product } from '../schema/product.js';
import { TextArena, textHash } from './text-arena.js';

/** What the stock plan needs of one live inventory item. */
export interface LiveInventoryItem {
  itemId: string;
  sku: string | null;
  quantity: number;
  productId: string;
  variantId: string | null;
  /** Product name, plus " / variant name" for a variant. */
  name: string;
  /** False when the product does not track inventory: such rows are reported, not written. */
  enabled: boolean;
  updatedAt: string;
}

// An item is ITEM_FIELDS 32-bit integers in `items`, at its number × ITEM_FIELDS. Its strings sit
// one after the other in `text`, from START: id, SKU, variant id, variant name, updated_at.
const START = 0;
const ID_LENGTH = 1;
/** -1: no SKU (null). */
const SKU_LENGTH = 2;
/** -1: no variant id (the product's own item). */
const VARIANT_ID_LENGTH = 3;
/** -1: the item's name is its product's alone. */
const VARIANT_NAME_LENGTH = 4;
const UPDATED_LENGTH = 5;
/** The quantity when it is a 32-bit integer; else it is in `bigQuantities` (BIG_QUANTITY set). */
const QUANTITY = 6;
/** Row of the sheet that named the item, 0 when none yet. */
const SEEN = 7;
const PRODUCT = 8;
/** Number + 1 of the next item that has the same SKU, 0 when none. */
const NEXT_SAME_SKU = 9;
const FLAGS = 10;
/** On the first item of a SKU: number + 1 of the last item with that SKU (appending is one step). */
const LAST_SAME_SKU = 11;
const ITEM_FIELDS = 12;
const ENABLED = 1;
const BIG_QUANTITY = 2;
// A product is three integers in `products`: where its id starts in `text`, the id's length, and
// its name's length (the name follows the id).
const PRODUCT_FIELDS = 3;

/**
 * Every live inventory item of a store, found by item id and by SKU, built from the product list
 * (product `inventory` and `variants[].inventory`). A SKU held by two live items is ambiguous: the
 * items stay linked so that the plan can name them all.
 *
 * Compact, for stores of millions of items: an item is a row of integers in one typed array and
 * its strings are code units in a {@link TextArena}; the lookups are open-addressing tables of
 * (hash, item number) in typed arrays too. So the index adds next to no objects for the garbage
 * collector to mark. As objects (one per item, six strings each), a million items made ~7 million
 * heap objects, and each full collection that came during a plan added half a second or more to
 * it. A sheet's SKUs are compared with the stored code units in compiled code, which also spares
 * the `Map.get` of a freshly parsed string its hashing in the runtime. The planner asks for item
 * numbers and their few numbers (`quantity`, `enabled`, `seenAt`); `item(n)` makes the object for
 * the few items that a plan changes or reports.
 */
export class LiveInventoryIndex {
  /** SKUs of products/variants that have no inventory item (tracking off): sku → display name. */
  readonly untracked = new Map<string, string>();
  /** SKUs of products that have variants (their stock is kept per variant): sku → product name. */
  readonly parents = new Map<string, string>();

  private readonly text: TextArena;
  private items: Int32Array;
  private count = 0;
  private products: Int32Array;
  private productCount = 0;
  private readonly bigQuantities = new Map<number, number>();
  private readonly byId: KeySlots;
  private readonly bySku: KeySlots;

  /** `expectedItems`: the store's size if known (the last run's), so that nothing has to grow. */
  constructor(expectedItems = 64) {
    // A figure from an earlier run's plan.json: a guess, never trusted past 4M items.
    const n = Number.isSafeInteger(expectedItems) ? Math.min(Math.max(16, expectedItems), 1 << 22) : 64;
    this.text = new TextArena(n * 64);
    this.items = new Int32Array(n * ITEM_FIELDS);
    this.products = new Int32Array(n * PRODUCT_FIELDS);
    this.byId = new KeySlots(n);
    this.bySku = new KeySlots(n);
  }

  static fromProducts(products: Iterable<Product>): LiveInventoryIndex {
    const index = new LiveInventoryIndex();
    for (const p of products) index.addProduct(p);
    return index;
  }

  /** Distinct item ids. */
  get size(): number {
    return this.byId.size;
  }

  addProduct(product: Product): void {
    let productNumber = -1;
    const own = () => (productNumber >= 0 ? productNumber : (productNumber = this.pushProduct(product)));
    if (product.inventory) {
      this.push(own(), product.inventory_enabled, {
        itemId: product.inventory.item_id,
        sku: product.inventory.sku ?? (product.sku || null),
        variantId: null,
        variantName: null,
        quantity: product.inventory.quantity,
        updatedAt: product.inventory.updated_at,
      });
    } else if (product.variants.length === 0 && product.sku) this.untracked.set(product.sku, product.name);
    else if (product.sku) this.parents.set(product.sku, product.name);
    for (const v of product.variants) {
      if (!v.inventory) {
        if (v.sku) this.untracked.set(v.sku, `${product.name} / ${v.name}`);
        continue;
      }
      this.push(own(), product.inventory_enabled, {
        itemId: v.inventory.item_id,
        sku: v.inventory.sku ?? v.sku,
        variantId: v.id,
        variantName: v.name,
        quantity: v.inventory.quantity,
        updatedAt: v.inventory.updated_at,
      });
    }
  }

  /** Adds one item as it is (its name kept whole). An item id added again is found as the last one. */
  add(item: LiveInventoryItem): void {
    this.push(this.pushProduct({ id: item.productId, name: item.name }), item.enabled, {
      itemId: item.itemId,
      sku: item.sku,
      variantId: item.variantId,
      variantName: null,
      quantity: item.quantity,
      updatedAt: item.updatedAt,
    });
  }

  /** Number of the item with this id, -1 when none. */
  findId(itemId: string): number {
    return this.byId.find(itemId, this, false);
  }

  /** Number of the first item with this SKU (see `sharesSku`), -1 when none. */
  findSku(sku: string): number {
    return sku === '' ? -1 : this.bySku.find(sku, this, true);
  }

  /**
   * `findSku` for a SKU kept as the `length` code units at `start` in `text`, whose `textHash` is
   * `hash`: no string made for it.
   */
  findSkuIn(text: TextArena, start: number, length: number, hash: number): number {
    return length === 0 ? -1 : this.bySku.findIn(hash, this, text, start, length);
  }

  /** The item with this id, made as an object; undefined when none. */
  get(itemId: string): LiveInventoryItem | undefined {
    const n = this.findId(itemId);
    return n < 0 ? undefined : this.item(n);
  }

  /** Whether the SKU of item `first`, a number `findSku` gave, belongs to other items too. */
  sharesSku(first: number): boolean {
    return this.items[first * ITEM_FIELDS + NEXT_SAME_SKU] !== 0;
  }

  /** Every item with item `n`'s SKU, in the order they were added. */
  sameSku(n: number): LiveInventoryItem[] {
    const out: LiveInventoryItem[] = [];
    for (let at = this.findSku(this.skuOf(n) ?? ''); at >= 0; at = this.nextSameSku(at)) {
      out.push(this.item(at));
    }
    return out;
  }

  /** Whether item `n`'s SKU is `sku` (false for an item without one). */
  hasSku(n: number, sku: string): boolean {
    return this.keyEquals(n, sku, true);
  }

  skuOf(n: number): string | null {
    const b = n * ITEM_FIELDS;
    const length = this.items[b + SKU_LENGTH] as number;
    return length < 0 ? null : this.text.read(this.skuStart(b), length);
  }

  quantity(n: number): number {
    const b = n * ITEM_FIELDS;
    if (((this.items[b + FLAGS] as number) & BIG_QUANTITY) !== 0) return this.bigQuantities.get(n) as number;
    return this.items[b + QUANTITY] as number;
  }

  enabled(n: number): boolean {
    return ((this.items[n * ITEM_FIELDS + FLAGS] as number) & ENABLED) !== 0;
  }

  /** Row of the sheet that already named item `n`, 0 when none yet (duplicates without a Set). */
  seenAt(n: number): number {
    return this.items[n * ITEM_FIELDS + SEEN] as number;
  }

  markSeen(n: number, rowNumber: number): void {
    this.items[n * ITEM_FIELDS + SEEN] = rowNumber;
  }

  /** Forgets which items a plan has seen, so that the index can plan another sheet. */
  resetSeen(): void {
    for (let b = SEEN; b < this.count * ITEM_FIELDS; b += ITEM_FIELDS) this.items[b] = 0;
  }

  /** Item `n` as an object (its strings read from the arena). */
  item(n: number): LiveInventoryItem {
    const items = this.items;
    const text = this.text;
    const b = n * ITEM_FIELDS;
    let at = items[b + START] as number;
    const take = (length: number): string | null => {
      if (length < 0) return null;
      const s = text.read(at, length);
      at += length;
      return s;
    };
    const itemId = take(items[b + ID_LENGTH] as number) as string;
    const sku = take(items[b + SKU_LENGTH] as number);
    const variantId = take(items[b + VARIANT_ID_LENGTH] as number);
    const variantName = take(items[b + VARIANT_NAME_LENGTH] as number);
    const updatedAt = take(items[b + UPDATED_LENGTH] as number) as string;
    const p = (items[b + PRODUCT] as number) * PRODUCT_FIELDS;
    const productStart = this.products[p] as number;
    const idLength = this.products[p + 1] as number;
    const productName = text.read(productStart + idLength, this.products[p + 2] as number);
    return {
      itemId,
      sku,
      quantity: this.quantity(n),
      productId: text.read(productStart, idLength),
      variantId,
      name: variantName === null ? productName : `${productName} / ${variantName}`,
      enabled: this.enabled(n),
      updatedAt,
    };
  }

  /** @internal the key of item `n` in `text` (its id, or its SKU), compared with `key`. */
  keyEquals(n: number, key: string, sku: boolean): boolean {
    const b = n * ITEM_FIELDS;
    const items = this.items;
    return sku
      ? this.text.equals(this.skuStart(b), items[b + SKU_LENGTH] as number, key)
      : this.text.equals(items[b + START] as number, items[b + ID_LENGTH] as number, key);
  }

  /** @internal whether item `n`'s SKU is the `length` code units at `start` in `text`. */
  skuEqualsIn(n: number, text: TextArena, start: number, length: number): boolean {
    const b = n * ITEM_FIELDS;
    return this.items[b + SKU_LENGTH] === length && this.text.equalsIn(this.skuStart(b), length, text, start);
  }

  /** Where the SKU of the item whose row starts at `b` starts in `text` (after its id). */
  private skuStart(b: number): number {
    return (this.items[b + START] as number) + (this.items[b + ID_LENGTH] as number);
  }

  private nextSameSku(n: number): number {
    return (this.items[n * ITEM_FIELDS + NEXT_SAME_SKU] as number) - 1;
  }

  private pushProduct(product: { id: string; name: string }): number {
    if ((this.productCount + 1) * PRODUCT_FIELDS > this.products.length) this.products = grown(this.products);
    const p = this.productCount * PRODUCT_FIELDS;
    this.products[p] = this.text.length;
    this.products[p + 1] = product.id.length;
    this.products[p + 2] = product.name.length;
    this.text.push(product.id);
    this.text.push(product.name);
    return this.productCount++;
  }

  private push(
    product: number,
    enabled: boolean,
    item: {
      itemId: string;
      sku: string | null;
      variantId: string | null;
      variantName: string | null;
      quantity: number;
      updatedAt: string;
    },
  ): void {
    if ((this.count + 1) * ITEM_FIELDS > this.items.length) this.items = grown(this.items);
    const n = this.count++;
    const items = this.items;
    const b = n * ITEM_FIELDS;
    const text = this.text;
    items[b + START] = text.length;
    items[b + ID_LENGTH] = item.itemId.length;
    text.push(item.itemId);
    items[b + SKU_LENGTH] = item.sku === null ? -1 : item.sku.length;
    if (item.sku !== null) text.push(item.sku);
    items[b + VARIANT_ID_LENGTH] = item.variantId === null ? -1 : item.variantId.length;
    if (item.variantId !== null) text.push(item.variantId);
    items[b + VARIANT_NAME_LENGTH] = item.variantName === null ? -1 : item.variantName.length;
    if (item.variantName !== null) text.push(item.variantName);
    items[b + UPDATED_LENGTH] = item.updatedAt.length;
    text.push(item.updatedAt);
    let flags = enabled ? ENABLED : 0;
    if ((item.quantity | 0) === item.quantity && !Object.is(item.quantity, -0)) {
      items[b + QUANTITY] = item.quantity;
    } else {
      flags |= BIG_QUANTITY;
      this.bigQuantities.set(n, item.quantity);
    }
    items[b + FLAGS] = flags;
    items[b + PRODUCT] = product;

    this.byId.insert(item.itemId, n, this, false, true);
    if (item.sku === null || item.sku === '') return;
    const first = this.bySku.insert(item.sku, n, this, true, false);
    if (first < 0) return;
    // A placeholder SKU ("N/A") may be shared by thousands of items: append without walking them.
    const firstBase = first * ITEM_FIELDS;
    const last = (items[firstBase + LAST_SAME_SKU] as number) - 1;
    items[(last >= 0 ? last : first) * ITEM_FIELDS + NEXT_SAME_SKU] = n + 1;
    items[firstBase + LAST_SAME_SKU] = n + 1;
  }
}

/**
 * An open-addressing table (linear probing, at most half full) from a key to an item number: two
 * integers a slot, the key's hash and the item's number + 1 (0: empty). The key itself is the
 * item's, in the index's arena: a probe compares it only when the hashes match.
 */
class KeySlots {
  private slots: Int32Array;
  private mask: number;
  size = 0;

  constructor(expected: number) {
    let count = 16;
    while (count < expected * 2) count *= 2;
    this.slots = new Int32Array(count * 2);
    this.mask = count - 1;
  }

  find(key: string, index: LiveInventoryIndex, sku: boolean): number {
    const { slots, mask } = this;
    const h = textHash(key);
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = slots[2 * i + 1] as number;
      if (entry === 0) return -1;
      if (slots[2 * i] === h && index.keyEquals(entry - 1, key, sku)) return entry - 1;
    }
  }

  /** `find` of a SKU given as code units in another arena, with its hash. */
  findIn(h: number, index: LiveInventoryIndex, text: TextArena, start: number, length: number): number {
    const { slots, mask } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const entry = slots[2 * i + 1] as number;
      if (entry === 0) return -1;
      if (slots[2 * i] === h && index.skuEqualsIn(entry - 1, text, start, length)) return entry - 1;
    }
  }

  /**
   * Puts item `n` under `key` unless the key is there already: then it points at `n` only when
   * `replace`. Returns the item the key had, -1 when it was new (one probe for both).
   */
  insert(key: string, n: number, index: LiveInventoryIndex, sku: boolean, replace: boolean): number {
    const { slots, mask } = this;
    const h = textHash(key);
    let i = h & mask;
    for (; ; i = (i + 1) & mask) {
      const entry = slots[2 * i + 1] as number;
      if (entry === 0) break;
      if (slots[2 * i] === h && index.keyEquals(entry - 1, key, sku)) {
        if (replace) slots[2 * i + 1] = n + 1;
        return entry - 1;
      }
    }
    slots[2 * i] = h;
    slots[2 * i + 1] = n + 1;
    if (++this.size * 2 > mask + 1) this.grow();
    return -1;
  }

  private grow(): void {
    const count = (this.mask + 1) * 2;
    const slots = new Int32Array(count * 2);
    const mask = count - 1;
    const old = this.slots;
    for (let j = 0; j < old.length; j += 2) {
      const entry = old[j + 1] as number;
      if (entry === 0) continue;
      const h = old[j] as number;
      let i = h & mask;
      while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
      slots[2 * i] = h;
      slots[2 * i + 1] = entry;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** A copy of `array` with twice the room. */
function grown(array: Int32Array): Int32Array {
  const out = new Int32Array(array.length * 2);
  out.set(array);
  return out;
}

import { PRODUCT_FIELDS, type VariantFields } from '../../schema/product.js';
import type { Product, ProductOption, ProductStatus } from '../../schema/index.js';
import type { Sequenced } from '../pagination.js';
import type { Utf8Blocks } from './utf8-blocks.js';

/** The product's own fields (everything but id, variants, options, images, stock and times). */
export const PRODUCT_FIELD_KEYS = PRODUCT_FIELDS;
export type ProductFieldKey = (typeof PRODUCT_FIELD_KEYS)[number];
export type ProductFields = Pick<Product, ProductFieldKey>;

/** One inventory item (stock of a product without variants, or of one variant). */
export interface ItemRec extends Sequenced {
  item_id: string;
  product_id: string;
  variant_id: string | null;
  quantity: number;
  updated_at: string;
}

/** A variant: its own fields (VariantFields) and its inventory item. */
export interface VariantRec extends VariantFields {
  item: ItemRec;
}

/**
 * A product as the table's rules work on it: made from the stored JSON for one request
 * (ProductTable.materialise) and turned back into JSON when the request changed it.
 */
export interface ProductRec extends Sequenced {
  id: string;
  fields: ProductFields;
  /**
   * The product-level inventory item. Decision: a product WITHOUT variants has exactly one item
   * (`product.inventory`); a product WITH variants has `inventory: null` and each variant carries
   * its own item. Adding the first variant removes the product item; removing all variants
   * (`variants: []`) creates a fresh one (quantity from `inventory_quantity`, else 0).
   */
  item: ItemRec | null;
  variants: VariantRec[];
  options: ProductOption[];
  images: string[];
  created_at: string;
  updated_at: string;
}

/**
 * A product as the store keeps it: its API JSON (what GET and the list pages answer, what the
 * state file holds), as UTF-8 in a Utf8Blocks outside the heap, and the little the indexes need.
 * One small object per product instead of ~60 objects and a string: 330,000 products fit in about
 * a gigabyte, and the garbage collector has little to walk (its pauses were the sandbox's stalls).
 */
export class ProductSlot implements Sequenced {
  seq = 0;
  private at = -1;
  private bytes = 0;

  constructor(
    private readonly arena: Utf8Blocks,
    readonly id: string,
    public status: ProductStatus,
  ) {}

  get json(): string {
    return this.arena.read(this.at, this.bytes);
  }

  set json(text: string) {
    const place = this.arena.write(text, this.at, this.bytes);
    this.at = place.at;
    this.bytes = place.bytes;
  }
}

/** An inventory item in the inventory index: its id, order, product and last change (epoch ms). */
export interface ItemSlot extends Sequenced {
  item_id: string;
  product: ProductSlot;
  updatedMs: number;
}

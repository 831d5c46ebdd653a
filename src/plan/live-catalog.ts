import type {
  OptionType,
  Product,
  ProductStatus,
  ProductType,
  ProductUnit,
  VariantFields,
} from '../schema/product.js';

/** The fields of a live variant the diff needs: its own fields and its stock. */
export interface LiveVariant extends VariantFields {
  /** `inventory.quantity`, null when the variant has no inventory item. */
  inventory_quantity: number | null;
  /** `inventory.updated_at`: when its stock last changed (absent: no inventory item). */
  inventory_updated_at?: string | null;
}

export interface LiveOption {
  id: string;
  type: OptionType;
  text: string;
  required: boolean;
  settings: unknown;
}

/** A live product reduced to what matching and diffing need (no timestamps but updated_at, no `object`). */
export interface LiveProduct {
  id: string;
  updated_at: string;
  reference_id: string | null;
  name: string;
  description: string;
  sku: string;
  status: ProductStatus;
  type: ProductType;
  price: number;
  original_price: number;
  cost_enabled: boolean;
  cost: number | null;
  unit_enabled: boolean;
  unit: ProductUnit;
  unit_value: number;
  weight: number;
  tax_override: boolean;
  tax_rate: number;
  tags: string[];
  links: string[];
  category_ids: string[];
  daily_limit: number;
  cart_limit: number;
  cart_minimum: number;
  inventory_enabled: boolean;
  inventory_quantity: number | null;
  /** `inventory.updated_at` of the product's own inventory item (absent: none). */
  inventory_updated_at?: string | null;
  images: string[];
  variants: LiveVariant[];
  options: LiveOption[];
  /**
   * Set on a product kept compact while a large catalog is read (see LiveCatalogRead): its
   * description, lists, variants and options were let go. `noopFor` is the one sheet product that
   * names it, planned alone against it as unchanged: the plan derives that product's entry without
   * the lists (planProducts). A compact product no sheet product names is only ever hidden, deleted
   * or counted.
   */
  compact?: { noopFor?: object | undefined };
}

/** The live store's products, indexed for matching. */
export interface LiveCatalog {
  products: LiveProduct[];
  byId: Map<string, LiveProduct>;
  byReferenceId: Map<string, LiveProduct>;
  /** Product sku → product (skus are trimmed; empty skus are not indexed). */
  bySku: Map<string, LiveProduct>;
  /** Variant sku → the product holding that variant. */
  byVariantSku: Map<string, LiveProduct>;
}

/**
 * A live product as the plan keeps it. Written out field by field, in the order of
 * pickProductFields and pickVariantFields (PRODUCT_FIELDS, VARIANT_FIELDS): every product gets
 * one hidden class, and a 100,000-product read spends a fraction of the time it spent copying
 * through those lists and spreads (~30 us a product with 3 variants).
 */
export function toLiveProduct(p: Product): LiveProduct {
  return {
    id: p.id,
    updated_at: p.updated_at,
    reference_id: p.reference_id,
    name: p.name,
    description: p.description,
    sku: p.sku,
    status: p.status,
    type: p.type,
    price: p.price,
    original_price: p.original_price,
    cost_enabled: p.cost_enabled,
    cost: p.cost,
    unit_enabled: p.unit_enabled,
    unit: p.unit,
    unit_value: p.unit_value,
    weight: p.weight,
    tax_override: p.tax_override,
    tax_rate: p.tax_rate,
    tags: p.tags,
    links: p.links,
    category_ids: p.category_ids,
    daily_limit: p.daily_limit,
    cart_limit: p.cart_limit,
    cart_minimum: p.cart_minimum,
    inventory_enabled: p.inventory_enabled,
    inventory_quantity: p.inventory?.quantity ?? null,
    inventory_updated_at: p.inventory?.updated_at ?? null,
    images: p.images,
    variants: p.variants.map((v) => ({
      id: v.id,
      name: v.name,
      sku: v.sku,
      description: v.description,
      price: v.price,
      original_price: v.original_price,
      cost: v.cost,
      weight: v.weight,
      inventory_quantity: v.inventory?.quantity ?? null,
      inventory_updated_at: v.inventory?.updated_at ?? null,
    })),
    options: p.options.map((o) => ({
      id: o.id,
      type: o.type,
      text: o.text,
      required: o.required,
      settings: o.settings,
    })),
  };
}

export function emptyLiveCatalog(): LiveCatalog {
  return {
    products: [],
    byId: new Map(),
    byReferenceId: new Map(),
    bySku: new Map(),
    byVariantSku: new Map(),
  };
}

/** Adds one product (as the paginated fetch yields it), so the full Product list is never held. */
export function addLiveProduct(catalog: LiveCatalog, product: Product): LiveProduct {
  const lp = toLiveProduct(product);
  catalog.products.push(lp);
  catalog.byId.set(lp.id, lp);
  if (lp.reference_id !== null && lp.reference_id !== '') catalog.byReferenceId.set(lp.reference_id, lp);
  const sku = lp.sku.trim();
  if (sku !== '') catalog.bySku.set(sku, lp);
  for (const v of lp.variants) {
    const vs = v.sku?.trim();
    if (vs !== undefined && vs !== '') catalog.byVariantSku.set(vs, lp);
  }
  return lp;
}

/** Index of the live products by id, reference_id, product sku and variant sku. */
export function indexLiveCatalog(products: Iterable<Product>): LiveCatalog {
  const catalog = emptyLiveCatalog();
  for (const p of products) addLiveProduct(catalog, p);
  return catalog;
}

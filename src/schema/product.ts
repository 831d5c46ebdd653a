import { z } from 'zod';
import { DateTime, HttpUrl } from './common.js';
import { InventoryItem } from './inventory.js';

export const PRODUCT_STATUSES = ['VISIBLE', 'HIDDEN'] as const;
export const PRODUCT_TYPES = ['PHYSICAL', 'DIGITAL', 'SUBSCRIPTION', 'BOOKING', 'OTHERS'] as const;
export const PRODUCT_UNITS = [
  'QTY',
  'KG',
  'G',
  'ML',
  'L',
  'PCS',
  'PAX',
  'PACK',
  'PERSON',
  'ROOM',
  'LBS',
  'HOUR',
  'BOX',
] as const;
export const OPTION_TYPES = [
  'OPTION_TEXT',
  'OPTION_NUMBER',
  'OPTION_DATE',
  'OPTION_CHECKBOX',
  'OPTION_SELECTION',
  'OPTION_MEDIA',
] as const;
/** At most this many images per product request. */
export const MAX_IMAGES = 10;

export const ProductStatus = z.enum(PRODUCT_STATUSES);
export const ProductType = z.enum(PRODUCT_TYPES);
export const ProductUnit = z.enum(PRODUCT_UNITS);
export const OptionType = z.enum(OPTION_TYPES);
export type ProductStatus = z.infer<typeof ProductStatus>;
export type ProductType = z.infer<typeof ProductType>;
export type ProductUnit = z.infer<typeof ProductUnit>;
export type OptionType = z.infer<typeof OptionType>;

export const Variant = z.object({
  id: z.string(),
  object: z.literal('variant'),
  product_id: z.string(),
  name: z.string(),
  sku: z.string().nullable(),
  description: z.string().nullable(),
  price: z.int(),
  original_price: z.int().nullable(),
  cost: z.int().nullable(),
  weight: z.int(),
  inventory: InventoryItem.nullable(),
});
export type Variant = z.infer<typeof Variant>;

/**
 * A variant's own fields, in the API's order: all but `object`, `product_id` and its inventory.
 * One list for the live catalog, the sandbox's product table and the product export's columns.
 */
const VariantOwnFields = Variant.omit({ object: true, product_id: true, inventory: true });
export type VariantFields = z.infer<typeof VariantOwnFields>;
export const VARIANT_FIELDS = VariantOwnFields.keyof().options;

/** The VariantFields of a variant (or of anything carrying them), in the API's order. */
export function pickVariantFields(v: VariantFields): VariantFields {
  const out: Partial<Record<keyof VariantFields, unknown>> = {};
  for (const f of VARIANT_FIELDS) out[f] = v[f];
  return out as VariantFields;
}

/** Settings of an OPTION_SELECTION option (the only shape the spec shows). */
export const SelectionSettings = z.object({
  options: z
    .array(
      z.object({
        text: z.string(),
        id: z.string().optional(),
        price: z.number().optional(),
        quantity: z.int().optional(),
      }),
    )
    .optional(),
  min: z.int().optional(),
  max: z.int().optional(),
  enableQuantity: z.boolean().optional(),
});
export type SelectionSettings = z.infer<typeof SelectionSettings>;

export const ProductOption = z.object({
  id: z.string(),
  object: z.literal('product_option'),
  type: OptionType,
  text: z.string(),
  required: z.boolean(),
  settings: z.unknown().optional(),
});
export type ProductOption = z.infer<typeof ProductOption>;

export const Product = z.object({
  id: z.string(),
  object: z.literal('product'),
  reference_id: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  sku: z.string(),
  status: ProductStatus,
  type: ProductType,
  price: z.int(),
  original_price: z.int(),
  cost_enabled: z.boolean(),
  cost: z.int().nullable(),
  unit_enabled: z.boolean(),
  unit: ProductUnit,
  unit_value: z.number(),
  weight: z.int(),
  tax_override: z.boolean(),
  tax_rate: z.int(),
  tags: z.array(z.string()),
  links: z.array(z.string()),
  category_ids: z.array(z.string()),
  daily_limit: z.int(),
  cart_limit: z.int(),
  cart_minimum: z.int(),
  inventory_enabled: z.boolean(),
  soldout: z.boolean(),
  inventory: InventoryItem.nullable(),
  variants: z.array(Variant),
  options: z.array(ProductOption),
  images: z.array(z.string()),
  created_at: DateTime,
  updated_at: DateTime,
});
export type Product = z.infer<typeof Product>;

const nonNegInt = z.int().min(0);

const variantFields = {
  name: z.string().min(1),
  price: nonNegInt,
  sku: z.string().optional(),
  description: z.string().optional(),
  original_price: nonNegInt.optional(),
  cost: nonNegInt.optional(),
  weight: z.int().optional(),
  inventory_quantity: nonNegInt.optional(),
};

/** A variant entry of a create body (no `id`). */
export const VariantCreate = z.object(variantFields);
export type VariantCreate = z.infer<typeof VariantCreate>;

/**
 * A variant entry of an update body. The spec requires `name` and `price` on every entry; with `id`
 * it edits that variant (fields left out stay as they are), without `id` it creates one.
 */
export const VariantUpdateEntry = z.object({ id: z.string().min(1).optional(), ...variantFields });
export type VariantUpdateEntry = z.infer<typeof VariantUpdateEntry>;

/** An option entry of a create body: `type` required. */
export const OptionCreate = z.object({
  type: OptionType,
  text: z.string().min(1),
  required: z.boolean().optional(),
  settings: z.unknown().optional(),
});
export type OptionCreate = z.infer<typeof OptionCreate>;

/**
 * An option entry of an update body: with `id` its `type` is read-only (ignored by the service);
 * without `id`, `type` is required.
 */
export const OptionUpdateEntry = z
  .object({
    id: z.string().min(1).optional(),
    type: OptionType.optional(),
    text: z.string().min(1),
    required: z.boolean().optional(),
    settings: z.unknown().optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.id === undefined && entry.type === undefined) {
      ctx.addIssue({ code: 'custom', message: 'type is required on a new option', path: ['type'] });
    }
  });
export type OptionUpdateEntry = z.infer<typeof OptionUpdateEntry>;

const productFields = {
  description: z.string().optional(),
  sku: z.string().optional(),
  reference_id: z.string().optional(),
  status: ProductStatus.optional(),
  type: ProductType.optional(),
  original_price: nonNegInt.optional(),
  cost_enabled: z.boolean().optional(),
  cost: nonNegInt.optional(),
  unit_enabled: z.boolean().optional(),
  unit: ProductUnit.optional(),
  unit_value: z.number().optional(),
  weight: z.int().optional(),
  tax_override: z.boolean().optional(),
  tax_rate: z.int().optional(),
  tags: z.array(z.string()).optional(),
  links: z.array(HttpUrl).optional(),
  category_ids: z.array(z.string()).optional(),
  daily_limit: z.int().optional(),
  cart_limit: z.int().optional(),
  cart_minimum: z.int().optional(),
  inventory_enabled: z.boolean().optional(),
  inventory_quantity: nonNegInt.optional(),
  images: z.array(HttpUrl).max(MAX_IMAGES, `at most ${MAX_IMAGES} images per request`).optional(),
};

export const ProductCreate = z.object({
  name: z.string().min(1),
  price: nonNegInt,
  ...productFields,
  variants: z.array(VariantCreate).optional(),
  options: z.array(OptionCreate).optional(),
});
export type ProductCreate = z.infer<typeof ProductCreate>;

export const ProductUpdate = z.object({
  name: z.string().min(1).optional(),
  price: nonNegInt.optional(),
  ...productFields,
  variants: z.array(VariantUpdateEntry).optional(),
  options: z.array(OptionUpdateEntry).optional(),
});
export type ProductUpdate = z.infer<typeof ProductUpdate>;

/**
 * The writable product fields that a returned Product carries under the same name, in the order of
 * the product sheet (docs/architecture.md, "Sheet formats"). One list for the sandbox, the plan, exports and rollback.
 */
export const PRODUCT_FIELDS = [
  'reference_id',
  'name',
  'description',
  'sku',
  'status',
  'type',
  'price',
  'original_price',
  'cost_enabled',
  'cost',
  'unit_enabled',
  'unit',
  'unit_value',
  'weight',
  'tax_override',
  'tax_rate',
  'tags',
  'links',
  'category_ids',
  'daily_limit',
  'cart_limit',
  'cart_minimum',
  'inventory_enabled',
] as const satisfies readonly (keyof ProductUpdate & keyof Product)[];
export type ProductField = (typeof PRODUCT_FIELDS)[number];

/** The PRODUCT_FIELDS of a product, in that order. */
export function pickProductFields(p: Product): Pick<Product, ProductField> {
  const out: Partial<Record<ProductField, unknown>> = {};
  for (const f of PRODUCT_FIELDS) out[f] = p[f];
  return out as Pick<Product, ProductField>;
}

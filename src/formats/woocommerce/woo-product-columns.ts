/**
 * Columns of WooCommerce's built-in product CSV exporter (WooCommerce 3.1+, "Product CSV Importer &
 * Exporter", github.com/woocommerce/woocommerce/wiki), matched case-insensitively. Attribute
 * columns (`Attribute N name`, `Attribute N value(s)`) and the weight column, whose header carries
 * the store's unit (`Weight (kg)`, `Weight (lbs)`), are found by pattern.
 */
export const WOO_PRODUCT_HEADERS = {
  id: ['ID'],
  type: ['Type'],
  sku: ['SKU'],
  name: ['Name'],
  published: ['Published'],
  shortDescription: ['Short description'],
  description: ['Description'],
  salePrice: ['Sale price'],
  regularPrice: ['Regular price'],
  tags: ['Tags'],
  images: ['Images'],
  parent: ['Parent'],
  position: ['Position'],
  stock: ['Stock'],
  inStock: ['In stock?'],
  categories: ['Categories'],
  weight: ['Weight (kg)', 'Weight (g)', 'Weight (lbs)', 'Weight (oz)'],
} as const;
export type WooProductColumn = keyof typeof WOO_PRODUCT_HEADERS;

/** Grams per unit of the `Weight (unit)` header. */
export const WOO_WEIGHT_GRAMS: Readonly<Record<string, number>> = {
  'weight (kg)': 1000,
  'weight (g)': 1,
  'weight (lbs)': 453.59237,
  'weight (oz)': 28.349523125,
};

/** Why a WooCommerce column is not imported. */
export function wooNotImported(header: string): string | undefined {
  const h = header.toLowerCase();
  if (/^attribute \d+ name$/.test(h)) return 'attribute names: variants are named by their values';
  if (/^attribute \d+ (visible|global)$/.test(h)) return 'attribute settings: no such field in the API';
  if (/^attribute \d+ value\(s\)$/.test(h)) return 'product-level attribute values: variants carry their own';
  if (h.startsWith('download ')) return 'downloads: no such field in the API';
  if (h.startsWith('meta:')) return 'custom meta: no such field in the API';
  if (/^(length|width|height) \(/.test(h)) return 'dimensions: no such field in the API';
  if (h === 'grouped products' || h === 'upsells' || h === 'cross-sells')
    return 'linked products: no such field in the API';
  if (h === 'external url' || h === 'button text') return 'external products are skipped';
  return undefined;
}

/**
 * Columns of Shopify's product CSV, by every header they have had (matched case-insensitively).
 * Older exports (2021 and before, and the product_template.csv still offered for download in 2024)
 * use `Handle`, `Body (HTML)`, `Variant SKU`, `Variant Price`, `Variant Compare At Price`,
 * `Variant Grams`, `Variant Inventory Qty`, `Image Src`; the current export (help.shopify.com,
 * "Using CSV files to import and export products") renamed them `URL handle`, `Description`,
 * `SKU`, `Price`, `Compare-at price`, `Weight value (grams)`, `Inventory quantity`,
 * `Product image URL`.
 */
export const SHOPIFY_PRODUCT_HEADERS = {
  handle: ['handle', 'url handle'],
  title: ['title'],
  body: ['body (html)', 'description', 'body html'],
  tags: ['tags'],
  published: ['published', 'published on online store'],
  status: ['status'],
  option1Name: ['option1 name'],
  option1Value: ['option1 value'],
  option2Name: ['option2 name'],
  option2Value: ['option2 value'],
  option3Name: ['option3 name'],
  option3Value: ['option3 value'],
  sku: ['variant sku', 'sku'],
  grams: ['variant grams', 'weight value (grams)'],
  tracker: ['variant inventory tracker', 'inventory tracker'],
  quantity: ['variant inventory qty', 'inventory quantity'],
  price: ['variant price', 'price'],
  compareAt: ['variant compare at price', 'compare-at price', 'compare at price'],
  cost: ['cost per item'],
  imageSrc: ['image src', 'product image url'],
  imagePosition: ['image position'],
  giftCard: ['gift card'],
  /** Not imported (no such field in the API); read only to recognise numbers Excel mangled. */
  barcode: ['variant barcode', 'barcode'],
} as const;
export type ShopifyProductColumn = keyof typeof SHOPIFY_PRODUCT_HEADERS;

/** Why a Shopify column is not imported: the Merchant API has no field for it. */
export function shopifyNotImported(header: string): string | undefined {
  const h = header.toLowerCase();
  if (h.startsWith('google shopping')) return 'Google Shopping feed data: no such field in the API';
  if (h.startsWith('seo ')) return 'SEO: no such field in the API';
  if (/^(price|compare[- ]at price|included) \//.test(h)) return 'market pricing: the API has one price';
  if (h.includes('metafield')) return 'metafield: no such field in the API';
  if (h === 'type') return 'free-text product type: not the API product type';
  if (h === 'vendor') return 'vendor: no such field in the API';
  if (h === 'product category') return "Shopify taxonomy: categories are the store's own ids (category_ids)";
  if (h === 'variant image' || h === 'variant image url') return 'the API has no per-variant image';
  if (h === 'image alt text') return 'the API keeps image URLs only';
  if (h === 'variant barcode' || h === 'barcode') return 'barcode: no such field in the API';
  return undefined;
}

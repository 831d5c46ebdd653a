/**
 * Columns of Shopify's product CSV, by every header they have had, as Shopify writes them (matched
 * case-insensitively).
 * Older exports (2021 and before, and the product_template.csv still offered for download in 2024)
 * use `Handle`, `Body (HTML)`, `Variant SKU`, `Variant Price`, `Variant Compare At Price`,
 * `Variant Grams`, `Variant Inventory Qty`, `Image Src`; the current export (help.shopify.com,
 * "Using CSV files to import and export products") renamed them `URL handle`, `Description`,
 * `SKU`, `Price`, `Compare-at price`, `Weight value (grams)`, `Inventory quantity`,
 * `Product image URL`.
 */
export const SHOPIFY_PRODUCT_HEADERS = {
  handle: ['Handle', 'URL handle'],
  title: ['Title'],
  body: ['Body (HTML)', 'Description', 'Body HTML'],
  tags: ['Tags'],
  published: ['Published', 'Published on online store'],
  status: ['Status'],
  option1Name: ['Option1 Name'],
  option1Value: ['Option1 Value'],
  option2Name: ['Option2 Name'],
  option2Value: ['Option2 Value'],
  option3Name: ['Option3 Name'],
  option3Value: ['Option3 Value'],
  sku: ['Variant SKU', 'SKU'],
  grams: ['Variant Grams', 'Weight value (grams)'],
  tracker: ['Variant Inventory Tracker', 'Inventory tracker'],
  quantity: ['Variant Inventory Qty', 'Inventory quantity'],
  price: ['Variant Price', 'Price'],
  compareAt: ['Variant Compare At Price', 'Compare-at price', 'Compare at price'],
  cost: ['Cost per item'],
  imageSrc: ['Image Src', 'Product image URL'],
  imagePosition: ['Image Position'],
  giftCard: ['Gift Card'],
  type: ['Type'],
  productCategory: ['Product Category'],
  /** Not imported (no such field in the API); read only to recognise numbers Excel mangled. */
  barcode: ['Variant Barcode', 'Barcode'],
} as const;
export type ShopifyProductColumn = keyof typeof SHOPIFY_PRODUCT_HEADERS;

/** Why a Shopify column is not imported: the Merchant API has no field for it. */
export function shopifyNotImported(header: string): string | undefined {
  const h = header.toLowerCase();
  if (h.startsWith('google shopping')) return 'Google Shopping feed data: no such field in the API';
  if (h.startsWith('seo ')) return 'SEO: no such field in the API';
  if (/^(price|compare[- ]at price|included) \//.test(h)) return 'market pricing: the API has one price';
  if (h.includes('metafield')) return 'metafield: no such field in the API';
  if (h === 'vendor') return 'vendor: no such field in the API';
  if (h === 'variant image' || h === 'variant image url') return 'the API has no per-variant image';
  if (h === 'image alt text') return 'the API keeps image URLs only';
  if (h === 'variant barcode' || h === 'barcode') return 'barcode: no such field in the API';
  return undefined;
}

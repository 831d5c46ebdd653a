import type { Product } from '../schema/product.js';

const LIST_FIELDS = ['tags', 'links', 'category_ids', 'images'] as const;
/** `'` then a formula trigger: the import would take the apostrophe for the export's neutralising one. */
const LOOKS_NEUTRALISED = /^'[=+\-@\t\r]/;

function padded(text: string): boolean {
  return text !== text.trim();
}

/**
 * Live values the product sheet format cannot carry back unchanged, as messages: list items that
 * contain `|` or surrounding spaces (the import splits on `|` and trims items), names and skus with
 * surrounding spaces (trimmed on import), and text that starts with `'` and a formula character
 * (the import removes such an apostrophe). Exporting still writes them; importing the file
 * unmodified would plan a change for these products.
 */
export function productRoundTripWarnings(p: Product): string[] {
  const out: string[] = [];
  const at = `product ${p.id}`;
  for (const field of LIST_FIELDS) {
    for (const item of p[field]) {
      if (item.includes('|') || padded(item) || item === '') {
        out.push(
          `${at}: ${field} item ${JSON.stringify(item)} ${item.includes('|') ? 'contains |, the list separator' : 'is blank or has surrounding spaces'}; a re-import would change it`,
        );
      }
    }
  }
  const trimmed: [string, string | null][] = [
    ['name', p.name],
    ['sku', p.sku],
    ['reference_id', p.reference_id],
  ];
  for (const v of p.variants) trimmed.push([`variant ${v.id} name`, v.name], [`variant ${v.id} sku`, v.sku]);
  for (const o of p.options) trimmed.push([`option ${o.id} text`, o.text]);
  for (const [what, value] of trimmed) {
    if (value !== null && padded(value)) {
      out.push(`${at}: ${what} ${JSON.stringify(value)} has surrounding spaces, which the import trims`);
    }
  }
  const texts: [string, string | null][] = [
    ['name', p.name],
    ['description', p.description],
    ...p.variants.map((v): [string, string | null] => [`variant ${v.id} description`, v.description]),
  ];
  for (const [what, value] of texts) {
    if (value !== null && LOOKS_NEUTRALISED.test(value)) {
      out.push(`${at}: ${what} starts with ' and a formula character; the import would drop the apostrophe`);
    }
  }
  return out;
}

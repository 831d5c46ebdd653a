import { readFileSync } from 'node:fs';
import Papa from 'papaparse';

/**
 * What a platform export says of each product, read straight from the file with papaparse (not
 * through merchant-bulk's readers or converters), so that a migration can be compared field by
 * field with its source. Money in minor units of a 2-decimal currency.
 */
export interface ExpectedProduct {
  reference: string;
  name: string;
  status?: 'VISIBLE' | 'HIDDEN';
  tags: string[];
  /** Image URLs in position order (all of them: the caller takes the first ten). */
  images: string[];
  /** The product's own SKU, price and stock when it has no variants. */
  sku?: string;
  price?: number;
  quantity?: number;
  variants: { name: string; sku?: string; price: number; quantity?: number }[];
  /** The export tracks stock (it may give no quantity). */
  tracked: boolean;
  /** Nothing to ship (WooCommerce virtual or downloadable, every variation of a variable product). */
  digital?: boolean;
  hasDescription: boolean;
}

function rows(file: string): Record<string, string>[] {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const parsed = Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim(),
  });
  return parsed.data.map((r) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(r)) out[k] = typeof v === 'string' ? v.trim() : '';
    return out;
  });
}

const minor = (text: string): number => Math.round(Number(text.replace(/,/g, '')) * 100);
const list = (text: string): string[] => [
  ...new Set(
    text
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  ),
];
const bareSku = (sku: string): string => (sku.startsWith("'") ? sku.slice(1) : sku);

/** A Shopify product export (any layout): products by handle, gift cards left out. */
export function shopifyExpectations(file: string): ExpectedProduct[] {
  const byHandle = new Map<string, Record<string, string>[]>();
  let last = '';
  for (const r of rows(file)) {
    const handle = r['Handle'] || r['URL handle'] || last;
    last = handle;
    const list = byHandle.get(handle) ?? [];
    list.push(r);
    byHandle.set(handle, list);
  }
  const out: ExpectedProduct[] = [];
  for (const [handle, rs] of byHandle) {
    const first = rs[0] as Record<string, string>;
    if (/^true$/i.test(first['Gift Card'] ?? '')) continue;
    const status = (first['Status'] ?? '').toLowerCase();
    const published = first['Published'] ?? '';
    const e: ExpectedProduct = {
      reference: handle,
      name: first['Title'] ?? '',
      tags: list(first['Tags'] ?? ''),
      images: [],
      variants: [],
      tracked: rs.some((r) => r['Variant Inventory Tracker'] === 'shopify'),
      hasDescription: (first['Body (HTML)'] ?? '') !== '',
    };
    if (status === 'active') e.status = /^false$/i.test(published) ? 'HIDDEN' : 'VISIBLE';
    else if (status === 'draft' || status === 'archived') e.status = 'HIDDEN';
    const images = rs
      .map((r, order) => ({ src: r['Image Src'] ?? '', position: Number(r['Image Position'] || 1e9), order }))
      .filter((i) => i.src !== '')
      .sort((a, b) => a.position - b.position || a.order - b.order);
    for (const i of images) if (!e.images.includes(i.src)) e.images.push(i.src);
    const variantRows = rs.filter((r) =>
      [r['Option1 Value'], r['Option2 Value'], r['Option3 Value'], r['Variant SKU'], r['Variant Price']].some(
        (v) => v,
      ),
    );
    const qty = (r: Record<string, string>) =>
      r['Variant Inventory Qty'] === undefined || r['Variant Inventory Qty'] === ''
        ? undefined
        : Math.max(0, Number(r['Variant Inventory Qty']));
    const only = variantRows.length === 1 ? variantRows[0] : undefined;
    if (
      only !== undefined &&
      [only['Option1 Value'], only['Option2 Value'], only['Option3 Value']].every(
        (o) => !o || o === 'Default Title',
      )
    ) {
      if (only['Variant SKU']) e.sku = bareSku(only['Variant SKU']);
      e.price = minor(only['Variant Price'] ?? '');
      const q = qty(only);
      if (q !== undefined) e.quantity = q;
    } else {
      for (const r of variantRows) {
        const name = [r['Option1 Value'], r['Option2 Value'], r['Option3 Value']]
          .filter((o) => o)
          .join(' / ');
        const v: ExpectedProduct['variants'][number] = { name, price: minor(r['Variant Price'] ?? '') };
        if (r['Variant SKU']) v.sku = bareSku(r['Variant SKU']);
        const q = qty(r);
        if (q !== undefined) v.quantity = q;
        e.variants.push(v);
      }
    }
    out.push(e);
  }
  return out;
}

const WOO_SKIPPED = /grouped|external/;

/** An English WooCommerce product export: simple and variable products with a price. */
export function wooExpectations(file: string): ExpectedProduct[] {
  const seen = new Set<string>();
  const all = rows(file).filter((r) => {
    const id = r['ID'] ?? '';
    if (id !== '' && seen.has(id)) return false; // a repeated row is read once
    seen.add(id);
    return true;
  });
  const bySku = new Map(all.filter((r) => r['SKU']).map((r) => [r['SKU'] as string, r]));
  const parentOf = (v: Record<string, string>) => {
    const p = v['Parent'] ?? '';
    return p.startsWith('id:') ? p.slice(3) : bySku.get(p)?.['ID'];
  };
  const out: ExpectedProduct[] = [];
  for (const r of all) {
    const type = r['Type'] ?? '';
    if (type.includes('variation') || WOO_SKIPPED.test(type)) continue;
    const price = (x: Record<string, string>) => x['Sale price'] || x['Regular price'] || '';
    const variations = type.includes('variable')
      ? all
          .filter(
            (v) => (v['Type'] ?? '').includes('variation') && parentOf(v) === r['ID'] && price(v) !== '',
          )
          .sort((a, b) => Number(a['Position'] || 0) - Number(b['Position'] || 0))
      : [];
    if (price(r) === '' && variations.length === 0) continue;
    const published = r['Published'];
    // Out of stock without a number is stock 0.
    const soldOut = (x: Record<string, string>) => x['Stock'] === '' && x['In stock?'] === '0';
    const stockOf = (x: Record<string, string>) =>
      x['Stock'] ? Math.max(0, Number(x['Stock'])) : soldOut(x) ? 0 : undefined;
    // The product's images, then its variations' (each once), up to 10 unless it has more of its own.
    const images = list(r['Images'] ?? '');
    if (images.length < 10)
      for (const url of variations.flatMap((v) => list(v['Images'] ?? '')))
        if (images.length < 10 && !images.includes(url)) images.push(url);
    const virtual = (x: Record<string, string>) => /virtual|downloadable/.test(x['Type'] ?? '');
    const e: ExpectedProduct = {
      reference: `woo:${r['ID']}`,
      name: r['Name'] ?? '',
      tags: list(r['Tags'] ?? ''),
      images,
      variants: [],
      tracked: stockOf(r) !== undefined || variations.some((v) => stockOf(v) !== undefined),
      hasDescription: (r['Description'] || r['Short description'] || '') !== '',
      digital: virtual(r) || (variations.length > 0 && variations.every(virtual)),
    };
    if (published === '1') e.status = 'VISIBLE';
    else if (published === '0' || published === '-1') e.status = 'HIDDEN';
    if (variations.length === 0) {
      e.price = minor(price(r));
      if (r['SKU']) e.sku = r['SKU'];
      const q = stockOf(r);
      if (q !== undefined) e.quantity = q;
    }
    const names = new Set<string>();
    for (const v of variations) {
      const values = Object.keys(v)
        .filter((k) => /^Attribute \d+ value\(s\)$/.test(k))
        .sort((a, b) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]))
        .map((k) => v[k])
        .filter((x) => x);
      const name = values.join(' / ') || v['SKU'] || v['Name'] || '';
      if (names.has(name)) continue;
      names.add(name);
      const variant: ExpectedProduct['variants'][number] = { name, price: minor(price(v)) };
      if (v['SKU']) variant.sku = v['SKU'];
      const q = stockOf(v);
      if (q !== undefined) variant.quantity = q;
      e.variants.push(variant);
    }
    out.push(e);
  }
  return out;
}

/**
 * An Etsy listings download, in any language: read by column position (title, description,
 * price, currency, quantity, tags, materials, IMAGE1…10, variations, SKU last). One product per
 * listing, keyed by its SKU when it has one, else by its title.
 */
export function etsyExpectations(file: string): ExpectedProduct[] {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const [header, ...data] = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy' }).data;
  const skuAt = (header ?? []).findIndex((h) => h.trim().toUpperCase() === 'SKU');
  return data.map((r) => {
    const cell = (i: number) => (r[i] ?? '').trim();
    const skus = list(cell(skuAt));
    const sku = skus.length === 1 ? skus[0] : undefined;
    const images: string[] = [];
    for (let i = 7; i < 17; i++) if (cell(i) !== '' && !images.includes(cell(i))) images.push(cell(i));
    const e: ExpectedProduct = {
      reference: sku !== undefined ? `etsy:${sku}` : `etsy:title:${cell(0)}`,
      name: cell(0),
      tags: list(cell(5)),
      images,
      price: minor(cell(2)),
      quantity: Number(cell(4)),
      variants: [],
      tracked: true,
      hasDescription: cell(1) !== '',
    };
    if (sku !== undefined) e.sku = sku;
    return e;
  });
}

/**
 * A Wix Stores product export: a Product row and the Variant rows of its handleId are one product;
 * variants named by their option values (productOptionDescriptionN of the options the product
 * names), priced price + surcharge; stock a number (tracked) or InStock (no count).
 */
export function wixExpectations(file: string): ExpectedProduct[] {
  const all = rows(file);
  const out: ExpectedProduct[] = [];
  for (const p of all.filter((r) => r['fieldType'] === 'Product')) {
    const handle = p['handleId'] ?? '';
    const variantRows = all.filter((r) => r['fieldType'] === 'Variant' && r['handleId'] === handle);
    const qty = (r: Record<string, string>) =>
      /^\d+$/.test(r['inventory'] ?? '')
        ? Number(r['inventory'])
        : r['inventory'] === 'OutOfStock'
          ? 0
          : undefined;
    const e: ExpectedProduct = {
      reference: `wix:${handle}`,
      name: p['name'] ?? '',
      status: p['visible'] === 'true' ? 'VISIBLE' : 'HIDDEN',
      tags: [],
      images: [...new Set((p['productImageUrl'] ?? '').split(';').filter((m) => m !== ''))],
      variants: [],
      tracked: [p, ...variantRows].some((r) => qty(r) !== undefined),
      hasDescription: (p['description'] ?? '') !== '',
    };
    const options = [1, 2, 3, 4, 5, 6].filter((n) => (p[`productOptionName${n}`] ?? '') !== '');
    if (variantRows.length === 0) {
      e.price = minor(p['price'] ?? '');
      if (p['sku']) e.sku = p['sku'];
      const q = qty(p);
      if (q !== undefined) e.quantity = q;
    }
    for (const v of variantRows) {
      const name = options
        .map((n) =>
          (v[`productOptionDescription${n}`] ?? '').replace(/^(#[0-9a-fA-F]{3,8}|rgba?\([^)]*\)):/, ''),
        )
        .filter((t) => t !== '')
        .join(' / ');
      const variant: ExpectedProduct['variants'][number] = {
        name,
        price: minor(p['price'] ?? '') + minor(v['surcharge'] || '0'),
      };
      if (v['sku']) variant.sku = v['sku'];
      const q = qty(v);
      if (q !== undefined) variant.quantity = q;
      e.variants.push(variant);
    }
    out.push(e);
  }
  return out;
}

/**
 * A Square item library export: one row per variation, an item's rows sharing its Item Name. An
 * item whose one variation is unnamed (Regular, Default Title, blank) has no variants; the others'
 * variations are named by their Option Values (joined with " / "), else Variation Name. Price is the
 * Online Sale Price when there is one; stock the sum of the Current Quantity columns (`location`:
 * that location's column alone), none when no column gives a number.
 */
export function squareExpectations(file: string, location?: string): ExpectedProduct[] {
  const all = rows(file);
  const header = Object.keys(all[0] ?? {});
  const stockColumns = header.filter(
    (h) =>
      h.startsWith('Current Quantity ') && (location === undefined || h === `Current Quantity ${location}`),
  );
  const qty = (r: Record<string, string>) => {
    const numbers = stockColumns.map((h) => r[h] ?? '').filter((t) => t !== '');
    return numbers.length === 0
      ? undefined
      : Math.max(
          0,
          numbers.reduce((s, t) => s + Number(t), 0),
        );
  };
  const price = (r: Record<string, string>) => minor(r['Online Sale Price'] || r['Price'] || '');
  const byName = new Map<string, Record<string, string>[]>();
  for (const r of all) {
    const name = r['Item Name'] ?? '';
    byName.set(name, [...(byName.get(name) ?? []), r]);
  }
  const out: ExpectedProduct[] = [];
  for (const [name, rs] of byName) {
    const first = rs[0] as Record<string, string>;
    const visibility = (first['Square Online Item Visibility'] ?? '').toLowerCase();
    const e: ExpectedProduct = {
      reference: `square:${name}`,
      name,
      tags: [],
      images: [],
      variants: [],
      tracked: rs.some((r) => qty(r) !== undefined),
      hasDescription: (first['Description'] ?? '') !== '',
    };
    if (first['Archived'] === 'Y' || visibility === 'hidden' || visibility === 'unavailable')
      e.status = 'HIDDEN';
    else if (visibility === 'visible') e.status = 'VISIBLE';
    const single =
      rs.length === 1 &&
      ['', 'regular', 'default title'].includes((first['Variation Name'] ?? '').toLowerCase());
    if (single) {
      e.price = price(first);
      if (first['SKU']) e.sku = first['SKU'];
      const q = qty(first);
      if (q !== undefined) e.quantity = q;
    } else {
      for (const r of rs) {
        const values = [r['Option Value 1'], r['Option Value 2'], r['Option Value 3']].filter((v) => v);
        const v: ExpectedProduct['variants'][number] = {
          name: values.join(' / ') || r['Variation Name'] || '',
          price: price(r),
        };
        if (r['SKU']) v.sku = r['SKU'];
        const q = qty(r);
        if (q !== undefined) v.quantity = q;
        e.variants.push(v);
      }
    }
    out.push(e);
  }
  return out;
}

/**
 * A BigCommerce products export of the legacy Default template: one product per row, keyed by its
 * Product ID; the price charged is Calculated Price; stock tracked when Product Inventoried is Y;
 * images the `Product Image URL: …` entries of Images, in order.
 */
export function bigCommerceExpectations(file: string): ExpectedProduct[] {
  return rows(file).map((r) => {
    const images = (r['Images'] ?? '')
      .split('|')
      .map((part) => /Product Image URL: (\S+)/.exec(part)?.[1])
      .filter((u): u is string => u !== undefined);
    const tracked = r['Product Inventoried'] === 'Y';
    const e: ExpectedProduct = {
      reference: `bigcommerce:${r['Product ID'] ?? ''}`,
      name: r['Name'] ?? '',
      status: r['Product Visible'] === 'Y' ? 'VISIBLE' : 'HIDDEN',
      tags: [],
      images: [...new Set(images)],
      price: minor(r['Calculated Price'] ?? ''),
      variants: [],
      tracked,
      digital: r['Product Type'] === 'D',
      hasDescription: (r['Description'] ?? '') !== '',
    };
    if (r['Code']) e.sku = r['Code'];
    if (tracked) e.quantity = Number(r['Stock Level']);
    return e;
  });
}

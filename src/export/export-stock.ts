import type { Product } from '../schema/product.js';
import type { Store } from '../schema/store.js';
import { createSheetWriter } from '../sheets/create-sheet-writer.js';
import type { ColumnSpec } from '../sheets/sheet-writer.js';
import { column, withWriter, writeRow } from './catalog-sheet.js';

export const STOCK_SHEET = 'stock';

/**
 * Columns of the stock export: the nightly stock import's format (`sku, quantity`), plus `item_id`,
 * which the import also reads (it finds items without a SKU, and checks the SKU of those with one).
 */
export const STOCK_COLUMNS: readonly ColumnSpec[] = [
  column('sku', 'text', 22),
  column('quantity', 'integer'),
  column('item_id', 'text', 22),
];

export interface ExportStockProgress {
  productsRead: number;
  rowsWritten: number;
  phase: 'writing' | 'finishing' | 'done';
}

export interface ExportStockOptions {
  /** The products, usually `client.products.list()`. Read once. */
  products: AsyncIterable<Product>;
  store: Pick<Store, 'timezone'>;
  path: string;
  format: 'csv' | 'xlsx';
  /** Progress every 100 products and at the end. */
  onProgress?: (progress: ExportStockProgress) => void;
}

export interface ExportStockResult {
  products: number;
  /** Inventory items written (one row each). */
  items: number;
  /** Items left out because inventory tracking is off for their product (the import skips them). */
  untracked: number;
  paths: { stock: string };
}

/**
 * `mbulk export stock`: one row per tracked inventory item (each variant of a product with
 * variants, else the product itself) in the stock import's format, so that importing an unmodified
 * export plans no change. Products with inventory tracking off are left out. Streams.
 */
export async function exportStock(options: ExportStockOptions): Promise<ExportStockResult> {
  const stats = { products: 0, items: 0, untracked: 0 };
  const report = (phase: ExportStockProgress['phase']): void =>
    options.onProgress?.({ productsRead: stats.products, rowsWritten: stats.items, phase });
  const writer = createSheetWriter(options.path, {
    format: options.format,
    currencyDecimals: 0,
    timezone: options.store.timezone,
  });
  await withWriter(writer, async () => {
    const sheet = await writer.addSheet({ name: STOCK_SHEET, columns: [...STOCK_COLUMNS] }, options.path);
    for await (const p of options.products) {
      stats.products++;
      // The SKU the stock import matches: the item's, else its variant's or product's (as the live index).
      const items =
        p.variants.length > 0
          ? p.variants.map((v) => ({ item: v.inventory, sku: v.inventory?.sku ?? v.sku }))
          : [{ item: p.inventory, sku: p.inventory?.sku ?? (p.sku || null) }];
      for (const { item, sku } of items) {
        if (item === null) continue;
        if (!p.inventory_enabled) {
          stats.untracked++;
          continue;
        }
        await writeRow(sheet, { sku, quantity: item.quantity, item_id: item.item_id });
        stats.items++;
      }
      if (stats.products % 100 === 0) report('writing');
    }
    report('finishing');
    await sheet.end();
  });
  report('done');
  return { ...stats, paths: { stock: options.path } };
}

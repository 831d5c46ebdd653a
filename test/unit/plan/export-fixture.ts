import { PRODUCT_SHEET_COLUMNS } from '../../../src/mapping/column-aliases.js';
import type { Product } from '../../../src/schema/product.js';
import { formatMoney } from '../../../src/sheets/money.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';

const MONEY = new Set([
  'price',
  'original_price',
  'cost',
  'variant_price',
  'variant_original_price',
  'variant_cost',
]);

function cell(column: string, value: unknown, decimals: number): CellValue {
  if (value === null || value === undefined) return '';
  if (MONEY.has(column) && typeof value === 'number') return formatMoney(value, decimals);
  if (Array.isArray(value)) return value.join('|');
  return String(value);
}

/** What an export of the live products writes: one row per variant, product columns on the first. */
export function exportRows(
  products: readonly Product[],
  decimals = 2,
): { header: string[]; data: CellValue[][] } {
  const header = PRODUCT_SHEET_COLUMNS.filter((c) => c !== 'command');
  const data: CellValue[][] = [];
  for (const p of products) {
    const product: Record<string, unknown> = { ...p, inventory_quantity: p.inventory?.quantity ?? null };
    const variants = p.variants.length === 0 ? [undefined] : p.variants;
    variants.forEach((v, i) => {
      data.push(
        header.map((col) => {
          if (col === 'id') return p.id;
          if (col.startsWith('variant_')) {
            if (v === undefined) return '';
            const field = col.slice('variant_'.length);
            const value =
              field === 'inventory_quantity'
                ? (v.inventory?.quantity ?? null)
                : (v as Record<string, unknown>)[field];
            return cell(col, value, decimals);
          }
          return i === 0 ? cell(col, product[col], decimals) : '';
        }),
      );
    });
  }
  return { header, data };
}

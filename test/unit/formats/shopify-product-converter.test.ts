import { describe, expect, it } from 'vitest';
import { ShopifyProductConverter } from '../../../src/formats/shopify/shopify-product-converter.js';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from '../mapping/sheet-fixture.js';

/** Converts a small Shopify sheet and maps the result as the import does. */
function convert(header: string[], data: CellValue[][]) {
  const s = sheet('products_export', header, data);
  const converter = new ShopifyProductConverter(s.columns, s.sheet);
  for (const row of s.rows) converter.addRow(row);
  const converted = converter.finish();
  const mapping = mapProductRows(
    { columns: converted.columns, rows: converted.rows, sheet: s.sheet },
    { decimals: 2 },
  );
  return { converted, mapping };
}

const HEADER = [
  'Handle',
  'Title',
  'Option1 Name',
  'Option1 Value',
  'Variant SKU',
  'Variant Inventory Tracker',
  'Variant Inventory Qty',
  'Variant Price',
  'Variant Barcode',
];

describe("Shopify's quirks undone where Shopify made them", () => {
  it("the leading ' Shopify writes on number-like SKUs is removed, noted once", () => {
    const { converted, mapping } = convert(HEADER, [
      ['tee', 'Tee', 'Size', 'S', "'10", 'shopify', '3', '5.00', "'0850064060010"],
      ['tee', '', '', 'M', "'2794774", 'shopify', '1', '5.00', ''],
      ['mug', 'Mug', 'Title', 'Default Title', "'11", 'shopify', '2', '7.00', ''],
    ]);
    expect(mapping.products[0]?.variants.map((v) => v.fields.sku)).toEqual(['10', '2794774']);
    expect(mapping.products[1]?.fields.sku).toBe('11');
    const notes = converted.issues.filter((i) => i.code === 'shopify_apostrophe_removed');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ severity: 'warning', rowNumber: 2, column: 'E', header: 'Variant SKU' });
    expect(notes[0]?.message).toBe(
      "Shopify's leading ' removed from 3 SKUs (first '10 → 10 here): Shopify adds it so that spreadsheets keep number-like SKUs as text",
    );
    expect(mapping.issues.filter((i) => i.severity === 'error')).toEqual([]);
  });

  it('a SKU Excel turned into 3.65275E+11 is an invalid cell naming Excel; barcodes so mangled are noted', () => {
    const { converted, mapping } = convert(HEADER, [
      ['hat', 'Hat', 'Size', 'S', '3.65275E+11', 'shopify', '1', '5.00', '3.65275E+11'],
      ['hat', '', '', 'M', 'HAT-M', 'shopify', '1', '5.00', '3.65275E+11'],
      ['cap', 'Cap', 'Title', 'Default Title', '8.50123E+12', '', '', '4.00', ''],
    ]);
    const errors = mapping.issues.filter((i) => i.severity === 'error');
    expect(errors.map((i) => [i.rowNumber, i.code])).toEqual([
      [2, 'excel_scientific'],
      [4, 'excel_scientific'],
    ]);
    expect(errors[0]?.message).toBe(
      'variant_sku: Excel turned this into 3.65275E+11: format the column as text and export again (the digits are lost in this file)',
    );
    expect(mapping.products.map((p) => p.invalid)).toEqual([true, true]);
    const barcodes = converted.issues.filter((i) => i.code === 'excel_scientific');
    expect(barcodes).toHaveLength(1);
    expect(barcodes[0]).toMatchObject({ severity: 'warning', rowNumber: 2, header: 'Variant Barcode' });
    expect(barcodes[0]?.message).toContain('Excel turned 2 barcodes into numbers such as 3.65275E+11');
  });
});

describe('one mistake, one message', () => {
  it('a bad price on the first variant row feeds the product price too, and is reported once', () => {
    const { mapping } = convert(HEADER, [
      ['mug', 'Mug', 'Size', 'S', 'M1', '', '', '1.999', ''],
      ['mug', '', '', 'M', 'M2', '', '', '5.00', ''],
    ]);
    expect(
      mapping.issues.filter((i) => i.severity === 'error').map((i) => [i.rowNumber, i.column, i.code]),
    ).toEqual([[2, 'H', 'money_too_many_decimals']]);
  });
});

import { describe, expect, it } from 'vitest';
import { formatOptionChoices, parseOptionChoices } from '../../../src/mapping/options-choices.js';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import type { CellValue } from '../../../src/sheets/sheet-row.js';
import { sheet } from './sheet-fixture.js';

const products = sheet(
  'products',
  ['reference_id', 'sku', 'name'],
  [
    ['R1', 'K1', 'Shirt'],
    ['R2', 'K2', 'Cap'],
  ],
);

function mapOptions(header: string[], data: CellValue[][]) {
  return mapProductRows(products, { decimals: 2 }, sheet('options', header, data));
}

describe('option_choices cell', () => {
  const money = { decimals: 2 };

  it('reads text[:price[:quantity]] separated by |, prices in currency units', () => {
    const r = parseOptionChoices('Small | Medium:1.50|Large:3:20|Gift::5', money);
    expect(r).toEqual({
      ok: true,
      value: [
        { text: 'Small' },
        { text: 'Medium', price: 150 },
        { text: 'Large', price: 300, quantity: 20 },
        { text: 'Gift', quantity: 5 },
      ],
    });
  });

  it('unescapes \\| \\: \\\\ in texts and round-trips through formatOptionChoices', () => {
    const r = parseOptionChoices('10\\:30 slot:2.00|a\\|b|back\\\\:1', money);
    expect(r.ok && r.value).toEqual([
      { text: '10:30 slot', price: 200 },
      { text: 'a|b' },
      { text: 'back\\', price: 100 },
    ]);
    const text = formatOptionChoices(r.ok ? r.value : [], money);
    expect(text).toBe('10\\:30 slot:2.00|a\\|b|back\\\\:1.00');
    expect(parseOptionChoices(text, money)).toEqual(r);
  });

  it('reads minor units with money: minor', () => {
    const r = parseOptionChoices('A:150', { decimals: 2, money: 'minor' });
    expect(r.ok && r.value).toEqual([{ text: 'A', price: 150 }]);
    expect(formatOptionChoices([{ text: 'A', price: 150 }], { decimals: 2, money: 'minor' })).toBe('A:150');
  });

  it('rejects a bad price, a bad quantity and an unescaped colon with a hint', () => {
    for (const bad of ['A:1.234', 'A:1:x', '10:30 slot:2', ':1']) {
      const r = parseOptionChoices(bad, money);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.code).toBe('invalid_option_choices');
      }
    }
    const r = parseOptionChoices('10:30 slot:2', money);
    expect(!r.ok && r.message).toContain('\\:');
  });
});

describe('options sheet', () => {
  it('attaches option rows to the products they name, keeping source rows', () => {
    const r = mapOptions(
      [
        'Reference_ID',
        'option_text',
        'option_type',
        'option_required',
        'option_choices',
        'option_min',
        'option_max',
        'option_enable_quantity',
        'option_id',
      ],
      [
        ['R1', 'Size', 'selection', 'yes', 'S|M:1.00', '1', '1', 'no', ''],
        ['R1', 'Engraving', 'OPTION_TEXT', 'no', '', '', '', '', ''],
        ['', '', '', '', '', '', '', '', ''],
      ].slice(0, 2),
    );
    expect(r.issues).toEqual([]);
    const p = r.products[0]!;
    expect(p.options).toEqual([
      {
        text: 'Size',
        type: 'OPTION_SELECTION',
        required: true,
        choices: [{ text: 'S' }, { text: 'M', price: 100 }],
        min: 1,
        max: 1,
        enableQuantity: false,
        row: { sheet: 'options', rowNumber: 2 },
      },
      { text: 'Engraving', type: 'OPTION_TEXT', required: false, row: { sheet: 'options', rowNumber: 3 } },
    ]);
    expect(p.rows.map((x) => `${x.sheet}:${x.rowNumber}`)).toEqual(['products:2', 'options:2', 'options:3']);
    expect(r.products[1]!.options).toBeUndefined();
  });

  it('finds the product by sku too, and reports unknown products, missing text, duplicates and bad cells', () => {
    const r = mapOptions(
      ['sku', 'option_text', 'option_type', 'option_choices'],
      [
        ['K2', 'Colour', 'selection', 'Red|Blue'],
        ['K9', 'Colour', 'selection', ''],
        ['K2', '', 'text', ''],
        ['K2', 'colour', 'text', ''],
        ['K2', 'Size', 'dropdown', 'A:1.234'],
      ],
    );
    expect(r.products[1]!.options?.map((o) => o.text)).toEqual(['Colour', 'Size']);
    expect(r.products[1]!.invalid).toBe(true);
    expect(r.issues.map((i) => [i.code, i.sheet, i.rowNumber, i.column])).toEqual([
      ['option_product_not_found', 'options', 3, 'A'],
      ['missing_option_text', 'options', 4, 'B'],
      ['duplicate_option', 'options', 5, 'B'],
      ['enum_invalid', 'options', 6, 'C'],
      ['invalid_option_choices', 'options', 6, 'D'],
    ]);
  });

  it('needs a key column and an option_text column', () => {
    const r = mapOptions(['option_type'], [['text']]);
    expect(r.issues.map((i) => i.code)).toEqual([
      'missing_key_column',
      'missing_option_column',
      'missing_product_key',
    ]);
  });
});

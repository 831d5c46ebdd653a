import { describe, expect, it } from 'vitest';
import { applyColumnMap, parseColumnMap } from '../../../src/formats/column-map.js';
import { describeSheetColumns } from '../../../src/formats/source-description.js';
import { mapProductRows } from '../../../src/mapping/product-sheet-mapper.js';
import { nearestHeader } from '../../../src/mapping/near-column.js';
import { sheet } from './sheet-fixture.js';

describe('near matches of a header', () => {
  it.each([
    ['Variant Prce', 'Variant Price'],
    ['variant-price', 'Variant Price'],
    ['VARIANT PRICE ', 'Variant Price'],
    ['Vairant Price', 'Variant Price'],
    ['Variant SKUs', 'Variant SKU'],
  ])('%s → %s', (header, expected) => {
    expect(nearestHeader(header, ['Handle', 'Variant SKU', 'Variant Price'])).toBe(expected);
  });
  it('nothing when no known header is within two letters, nor for short words', () => {
    expect(nearestHeader('Vendor', ['Variant Price', 'Title'])).toBeUndefined();
    expect(nearestHeader('Tax', ['Tag'])).toBeUndefined();
  });
});

describe('near matches in the own sheet', () => {
  it('an unknown column close to a known one is a warning naming it; a missing key says did you mean', () => {
    const r = mapProductRows(sheet('products', ['referense_id', 'name', 'Prce'], [['A', 'Mug', '5']]), {
      decimals: 2,
    });
    const byCode = Object.fromEntries(
      r.issues.map((i) => [i.code === 'near_column' ? i.header : i.code, i.message]),
    );
    expect(byCode['Prce']).toBe(
      'column "Prce" is not a known column and is ignored; did you mean price? Rename it so if it should be imported',
    );
    expect(byCode['missing_key_column']).toBe(
      'the sheet needs an id, reference_id or sku column so each row can be matched to a product; reference_id (did you mean column A, "referense_id"?)',
    );
    expect(r.columnRefs['price']).toEqual({
      letter: '',
      header: 'price',
      hint: 'no price column: did you mean column C, "Prce"?',
    });
  });
});

describe('--map joins columns', () => {
  it('"Colour+Size=variant_name" joins the values with " / " in that order, blanks left out; headers stay the user\'s', () => {
    const s = sheet(
      'supplier.csv',
      ['Ref', 'Title', 'Colour', 'Size', 'Price'],
      [
        ['T1', 'Tee', 'Red', 'S', '10'],
        ['T1', '', 'Red', 'M', ''],
        ['T1', '', 'Blue', '', ''],
      ],
    );
    const mapped = applyColumnMap(
      s.columns,
      parseColumnMap('Ref=reference_id,Title=name,Colour+Size=variant_name'),
      'supplier.csv',
    );
    const r = mapProductRows(
      { columns: mapped.columns, rows: s.rows.map(mapped.row), sheet: s.sheet },
      { decimals: 2, columnFields: mapped.fields },
    );
    expect(r.issues).toEqual([]);
    expect(r.products[0]?.variants.map((v) => v.fields.name)).toEqual(['Red / S', 'Red / M', 'Blue']);
    expect(describeSheetColumns(mapped.columns, mapped)).toEqual([
      { header: 'Ref', letter: 'A', field: 'reference_id' },
      { header: 'Title', letter: 'B', field: 'name' },
      { header: 'Colour', letter: 'C', field: 'variant_name', note: 'joined: Colour+Size' },
      { header: 'Size', letter: 'D', field: 'variant_name', note: 'joined: Colour+Size' },
      { header: 'Price', letter: 'E', field: 'price' },
    ]);
  });

  it("two columns mapped to one field: the error names both of the user's headers and the join", () => {
    const s = sheet('supplier.csv', ['Ref', 'Colour', 'Size'], [['T1', 'Red', 'S']]);
    const mapped = applyColumnMap(
      s.columns,
      parseColumnMap('Ref=reference_id,Colour=variant_name,Size=variant_name'),
      'f',
    );
    const r = mapProductRows(
      { columns: mapped.columns, rows: s.rows, sheet: s.sheet },
      { decimals: 2, columnFields: mapped.fields },
    );
    expect(r.issues.find((i) => i.code === 'duplicate_column')?.message).toBe(
      'column "Size" means variant_name, like column B ("Colour"); keep only one of them, or join their values with --map "Colour+Size=variant_name"',
    );
  });

  it('a joined header the sheet does not have is named with the headers it has', () => {
    const s = sheet('supplier.csv', ['Ref', 'Colour'], []);
    expect(() =>
      applyColumnMap(s.columns, parseColumnMap('Colour+Size=variant_name'), 'supplier.csv'),
    ).toThrow('supplier.csv: the column map names "Size", not in the header (Ref, Colour)');
  });
});

import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readProductSheets } from '../../../../src/jobs/products/product-sheets.js';
import type * as ReadSheet from '../../../../src/sheets/read-sheet.js';

// Every sheet reader readProductSheets opens is closed, also when it refuses the sheet: a reader
// left open keeps its file open (and, for an XLSX, its unzipping) until the process ends.
const readers = vi.hoisted(() => ({ opened: 0, closed: 0 }));
vi.mock('../../../../src/sheets/read-sheet.js', async (importOriginal) => {
  const real = await importOriginal<typeof ReadSheet>();
  return {
    ...real,
    readSheet: (...args: Parameters<typeof real.readSheet>) => {
      const reader = real.readSheet(...args);
      readers.opened += 1;
      const close = reader.close.bind(reader);
      let closed = false;
      reader.close = async () => {
        if (!closed) readers.closed += 1;
        closed = true;
        await close();
      };
      return reader;
    },
  };
});

const SHOPIFY = path.resolve(import.meta.dirname, '../../../fixtures/corpus/shopify/product_template.csv');
const SQUARE = path.resolve(
  import.meta.dirname,
  '../../../fixtures/corpus/square/thescottyb_catalog-2025-06-09_extract.csv',
);
const mapping = { decimals: 2, currency: 'USD' };

afterEach(() => {
  readers.opened = 0;
  readers.closed = 0;
});

describe('readProductSheets closes the sheet it refuses', () => {
  it('--map on a platform export (a usage error naming the format)', async () => {
    await expect(readProductSheets({ file: SHOPIFY, mapping, columnMap: { Title: 'name' } })).rejects.toThrow(
      /this is a Shopify product export, read by its own rules; --map/,
    );
    expect(readers.opened).toBeGreaterThan(0);
    expect(readers.closed).toBe(readers.opened);
  });

  it('--map naming a header the sheet does not have (--from mbulk)', async () => {
    await expect(
      readProductSheets({ file: SHOPIFY, mapping, from: 'mbulk', columnMap: { 'No Such Header': 'name' } }),
    ).rejects.toThrow(/No Such Header/);
    expect(readers.opened).toBeGreaterThan(0);
    expect(readers.closed).toBe(readers.opened);
  });

  it('--location on a sheet that is not a Square export', async () => {
    await expect(readProductSheets({ file: SHOPIFY, mapping, location: 'Main St' })).rejects.toThrow(
      /--location/,
    );
    expect(readers.closed).toBe(readers.opened);
  });

  it('--location that is not a location of the Square export', async () => {
    await expect(readProductSheets({ file: SQUARE, mapping, location: 'Back room' })).rejects.toThrow(
      /not a location of this Square export/,
    );
    expect(readers.opened).toBeGreaterThan(0);
    expect(readers.closed).toBe(readers.opened);
  });
});

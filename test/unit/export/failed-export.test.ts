import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { column, withWriter, writeRow } from '../../../src/export/catalog-sheet.js';
import { exportOrders } from '../../../src/export/export-orders.js';
import type { Order } from '../../../src/schema/order.js';
import { createSheetWriter } from '../../../src/sheets/create-sheet-writer.js';
import { makeOrder, STORE } from './order-factory.js';

/** Yields `good` orders, then fails as a dropped connection would. */
async function* failingOrders(good: number): AsyncGenerator<Order> {
  for (let i = 0; i < good; i++) {
    yield makeOrder({ id: `ord_${i}`, number: String(1000 + i), lines: [{ price: 500, quantity: 1 }] });
  }
  throw new Error('connection lost while reading orders');
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-failed-export-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const OLD = 'old,complete,export\n';

describe('a failed export publishes nothing', () => {
  for (const format of ['xlsx', 'csv', 'json'] as const) {
    it(`${format}: no file appears at a new destination`, async () => {
      const sub = await mkdtemp(join(dir, `${format}-new-`));
      const path = join(sub, `orders.${format}`);
      await expect(exportOrders({ orders: failingOrders(30), store: STORE, path, format })).rejects.toThrow(
        /connection lost/,
      );
      expect(await readdir(sub)).toEqual([]);
    });

    it(`${format}: an existing older file is left untouched`, async () => {
      const sub = await mkdtemp(join(dir, `${format}-old-`));
      const path = join(sub, `orders.${format}`);
      await writeFile(path, OLD);
      await expect(exportOrders({ orders: failingOrders(30), store: STORE, path, format })).rejects.toThrow(
        /connection lost/,
      );
      expect(await readFile(path, 'utf8')).toBe(OLD);
      expect(await readdir(sub)).toEqual([`orders.${format}`]);
    });
  }

  it('withWriter aborts (no file, older file kept) when the body fails, and rethrows', async () => {
    const sub = await mkdtemp(join(dir, 'catalog-'));
    const path = join(sub, 'products.csv');
    await writeFile(path, OLD);
    const writer = createSheetWriter(path, { format: 'csv', currencyDecimals: 2 });
    await expect(
      withWriter(writer, async () => {
        const sheet = await writer.addSheet({ name: 'products', columns: [column('name', 'text')] });
        await writeRow(sheet, { name: 'partial row' });
        throw new Error('products read failed');
      }),
    ).rejects.toThrow(/products read failed/);
    expect(await readFile(path, 'utf8')).toBe(OLD);
    expect(await readdir(sub)).toEqual(['products.csv']);
  });
});

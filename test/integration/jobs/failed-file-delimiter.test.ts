import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { applyStockRun, planStockImport } from '../../../src/jobs/stock/stock-import.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The first SKU of a tracked inventory item in the store. */
function firstSku(snapshot: ReturnType<typeof generateStore>): string {
  for (const p of snapshot.products) {
    if (!p.inventory_enabled) continue;
    for (const i of [p.inventory, ...p.variants.map((v) => v.inventory)]) if (i?.sku) return i.sku;
  }
  throw new Error('no tracked SKU');
}

describe('failed.csv uses the delimiter of the sheet it came from', () => {
  it.each([
    [';', 'semicolon'],
    [',', 'comma'],
  ])('a %s-separated stock sheet gives a %s-separated failed.csv', async (delimiter) => {
    const snapshot = generateStore({ products: 10, customers: 0, orders: 0, seed: 3 });
    sandbox = await startSandbox({ seed: snapshot });
    const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-failed-delim-'));
    const file = join(dir, 'stock.csv');
    const sku = firstSku(snapshot);
    // A third column whose text holds the other delimiter: it must come back as one cell.
    const rows = [
      ['sku', 'quantity', 'note'],
      ['NO-SUCH-SKU', '1', 'a, b; c'],
      [sku, '-4', 'plain'],
    ];
    const quote = (c: string): string => (c.includes(delimiter) ? `"${c}"` : c);
    writeFileSync(file, `${rows.map((r) => r.map(quote).join(delimiter)).join('\r\n')}\r\n`);
    const planned = await planStockImport({ client, file, runsRoot: join(dir, 'runs'), target: 'test' });
    const applied = await applyStockRun(planned.run, { client });
    await client.close();
    expect(applied.failedRows.map((r) => r.row)).toEqual([2, 3]);

    const text = readFileSync(planned.run.file('failed'), 'utf8').replace(/^\ufeff/, '');
    const header = text.split('\r\n')[0] ?? '';
    expect(header).toBe(['sku', 'quantity', 'note', 'mbulk_error'].join(delimiter));
    // Read back with papaparse told the delimiter: the input's cells, unchanged.
    const parsed = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: true }).data;
    expect(parsed.slice(1).map((r) => r.slice(0, 3))).toEqual(rows.slice(1));
    expect(parsed.every((r) => r.length === 4)).toBe(true);
  });
});

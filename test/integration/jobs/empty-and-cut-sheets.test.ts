import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { sampleSandboxes } from '../../helpers/sample-sandboxes.js';

/**
 * A sheet with a header and no rows is refused (exit 3) unless --allow-empty, and
 * a last line cut mid-line is reported as such, never read as a (wrong) row. Witness: the sandbox
 * request log (zero writes) and store state.
 */
const { dir, sandbox: sampleSandbox } = sampleSandboxes('mbulk-truncated-');

async function sandbox() {
  const { s, env, writes } = await sampleSandbox();
  const variantStock = (sku: string) => {
    for (const p of s.store.toSnapshot().products)
      for (const v of p.variants) if (v.sku === sku) return v.inventory?.quantity;
    return undefined;
  };
  return { s, env, writes, variantStock };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

type Failed = { failedRows: { row: number; code: string; message: string }[] };

describe('a sheet with a header and no rows', () => {
  const cases: [string, string][] = [
    ['stock', 'sku,quantity\r\n'],
    ['customers', 'name,phone,email\n'],
    ['products', 'reference_id,name,price\n\n'],
  ];
  for (const [kind, text] of cases) {
    it(`import ${kind}: refused with exit 3 and zero writes, unless --allow-empty`, async () => {
      const { env, writes } = await sandbox();
      const path = file(`empty-${kind}.csv`, text);
      const r = await runCli(['import', kind, path, '--apply', '--yes', '--json'], env, dir);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('the sheet has no rows: truncated file?');
      expect(r.stderr).toContain(path);
      expect(r.json()).toMatchObject({ ok: false, error: { code: 'empty_sheet' } });
      expect(writes()).toEqual([]);

      const allowed = await runCli(
        ['import', kind, path, '--apply', '--yes', '--json', '--allow-empty'],
        env,
        dir,
      );
      expect(allowed.code).toBe(0);
      expect(allowed.json()).toMatchObject({ ok: true });
      expect(writes()).toEqual([]);
    });
  }
});

describe('a last line cut mid-line', () => {
  it('stock: the cut row is reported as cut short, not as an unknown SKU; the rows before it apply', async () => {
    const { env, variantStock } = await sandbox();
    const path = file('cut-stock.csv', 'sku,quantity\nTEE-LIN-SND-M,46\nTEE-LIN-SN');
    const r = await runCli(['import', 'stock', path, '--apply', '--yes', '--json'], env, dir);
    expect(r.code).toBe(1);
    const failed = r.json<Failed>().failedRows;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ row: 3, code: 'row_cut_short' });
    expect(failed[0]?.message).toMatch(/row 3 of cut-stock\.csv is cut short: truncated file\?/);
    expect(variantStock('TEE-LIN-SND-M')).toBe(46);
  });

  it('products: a cut catalog row writes nothing of its product (no wrong price)', async () => {
    const { env, writes, s } = await sandbox();
    const before = s.store.toSnapshot().products.find((p) => p.reference_id === 'ERP-0000002');
    const path = file(
      'cut-catalog.csv',
      'reference_id,name,price,tags\nERP-0000001,Gula Melaka Latte,11.90,coffee|drinks\nERP-0000002,Linen tee,1',
    );
    const r = await runCli(['import', 'products', path, '--apply', '--yes', '--json'], env, dir);
    expect(r.code).toBe(1);
    const failed = r.json<Failed>().failedRows;
    expect(failed.map((f) => [f.row, f.code])).toEqual([[3, 'row_cut_short']]);
    expect(writes()).toEqual([]);
    const after = s.store.toSnapshot().products.find((p) => p.reference_id === 'ERP-0000002');
    expect(after).toEqual(before);
  });

  it('customers: the cut row is reported as cut short and creates no customer', async () => {
    const { env, writes } = await sandbox();
    const path = file('cut-customers.csv', 'name,phone,email\nFarah,+60 12-345 678');
    const r = await runCli(['import', 'customers', path, '--apply', '--yes', '--json'], env, dir);
    expect(r.code).toBe(1);
    expect(r.json<Failed>().failedRows).toMatchObject([{ row: 2, code: 'row_cut_short' }]);
    expect(writes()).toEqual([]);
  });

  it('a last row with every field but no final line break is read as usual', async () => {
    const { env, variantStock } = await sandbox();
    const path = file('full-stock.csv', 'sku,quantity\nTEE-LIN-SND-M,47');
    const r = await runCli(['import', 'stock', path, '--apply', '--yes', '--json'], env, dir);
    expect(r.code).toBe(0);
    expect(variantStock('TEE-LIN-SND-M')).toBe(47);
  });
});

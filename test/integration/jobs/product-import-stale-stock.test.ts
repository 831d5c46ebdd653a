import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { sampleSandboxes } from '../../helpers/sample-sandboxes.js';

/**
 * Re-importing an older `export products` sheet must not reset the stock of items
 * sold since the export. Witness: the sandbox store's inventory after `--apply`.
 */
const { dir, sandbox: sampleSandbox } = sampleSandboxes('mbulk-stale-stock-');

async function sandbox() {
  const { s, env, writes } = await sampleSandbox();
  const item = (sku: string) => {
    for (const p of s.store.toSnapshot().products)
      for (const v of p.variants) if (v.sku === sku && v.inventory) return v.inventory;
    throw new Error(`no item ${sku}`);
  };
  /** A sale in the store: the item's stock goes down by `n`. */
  const sell = (sku: string, n: number) =>
    s.store.updateInventoryItem(item(sku).item_id, { delta_quantity: -n });
  return { s, env, item, sell, writes };
}

describe('stale stock in a re-imported product export', () => {
  it('leaves the stock of items sold after the export unchanged, with one warning; --stock overwrite forces it', async () => {
    const { env, item, sell, writes } = await sandbox();
    const out = join(dir, 'a', 'catalog.csv');
    const exported = await runCli(['export', 'products', out, '--json'], env, dir);
    expect(exported.code).toBe(0);
    const header = readFileSync(out, 'utf8').split(/\r?\n/)[0];
    expect(header).toMatch(/,mbulk_exported_at$/);

    sell('TEE-LIN-SND-M', 1); // 45 → 44
    sell('NLB-BX4-STD', 6); // 386 → 380
    const options = ['--options', join(dir, 'a', 'catalog-options.csv')];

    const r = await runCli(['import', 'products', out, ...options, '--apply', '--yes', '--json'], env, dir);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/left unchanged/g)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /stock of 2 items left unchanged: they changed in the store after this sheet was exported/,
    );
    expect(writes()).toEqual([]);
    expect(item('TEE-LIN-SND-M').quantity).toBe(44);
    expect(item('NLB-BX4-STD').quantity).toBe(380);

    const forced = await runCli(
      ['import', 'products', out, ...options, '--apply', '--yes', '--json', '--stock', 'overwrite'],
      env,
      dir,
    );
    expect(forced.code).toBe(0);
    expect(item('TEE-LIN-SND-M').quantity).toBe(45);
    expect(item('NLB-BX4-STD').quantity).toBe(386);
  });

  it('export products --no-stock leaves the inventory columns out', async () => {
    const { env, sell, item, writes } = await sandbox();
    const out = join(dir, 'b', 'catalog.csv');
    const exported = await runCli(['export', 'products', out, '--no-stock', '--json'], env, dir);
    expect(exported.code).toBe(0);
    const header = readFileSync(out, 'utf8').split(/\r?\n/)[0] ?? '';
    expect(header.split(',')).not.toContain('inventory_quantity');
    expect(header.split(',')).not.toContain('variant_inventory_quantity');
    sell('TEE-LIN-SND-M', 2);
    const r = await runCli(
      [
        'import',
        'products',
        out,
        '--options',
        join(dir, 'b', 'catalog-options.csv'),
        '--apply',
        '--yes',
        '--json',
      ],
      env,
      dir,
    );
    expect(r.code).toBe(0);
    expect(writes()).toEqual([]);
    expect(item('TEE-LIN-SND-M').quantity).toBe(43);
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { SAMPLE_STORE, sampleSandboxes } from '../../helpers/sample-sandboxes.js';

/**
 * `mbulk export stock FILE` writes the nightly stock format (sku, quantity,
 * item_id), and `import stock` reads a product export's variant_sku / variant_inventory_quantity.
 * Witness: the sandbox request log and store state.
 */
const { dir, sandbox: sampleSandbox } = sampleSandboxes('mbulk-stock-export-');

async function sandbox() {
  const { s, env, writes } = await sampleSandbox();
  const stock = (sku: string) => {
    for (const p of s.store.toSnapshot().products) {
      if (p.variants.length === 0 && p.sku === sku) return p.inventory?.quantity;
      for (const v of p.variants) if (v.sku === sku) return v.inventory?.quantity;
    }
    return undefined;
  };
  return { s, env, stock, writes };
}

/** Tracked inventory items of the sample store: sku → quantity. */
function trackedItems(): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of SAMPLE_STORE.products) {
    if (!p.inventory_enabled) continue;
    if (p.variants.length === 0) {
      if (p.inventory) out.set(p.inventory.sku ?? p.sku, p.inventory.quantity);
    } else
      for (const v of p.variants)
        if (v.inventory) out.set(v.inventory.sku ?? v.sku ?? '', v.inventory.quantity);
  }
  return out;
}

describe('mbulk export stock', () => {
  it('writes sku, quantity, item_id for every tracked item; re-importing it changes nothing', async () => {
    const { env, writes, stock } = await sandbox();
    const out = join(dir, 'stock.csv');
    const r = await runCli(['export', 'stock', out, '--json'], env, dir);
    expect(r.code).toBe(0);
    const lines = readFileSync(out, 'utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toBe('sku,quantity,item_id');
    const rows = new Map(lines.slice(1).map((l) => [l.split(',')[0] as string, Number(l.split(',')[1])]));
    expect(rows).toEqual(trackedItems());

    const again = await runCli(['import', 'stock', out, '--apply', '--yes', '--json'], env, dir);
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ counts: { change: 0, invalid: 0 } });
    expect(writes()).toEqual([]);

    writeFileSync(out, readFileSync(out, 'utf8').replace(/^TEE-LIN-SND-M,45,/m, 'TEE-LIN-SND-M,40,'));
    const edited = await runCli(['import', 'stock', out, '--apply', '--yes', '--json'], env, dir);
    expect(edited.code).toBe(0);
    expect(writes()).toHaveLength(1);
    expect(stock('TEE-LIN-SND-M')).toBe(40);
  });
});

describe('import stock of a product export', () => {
  it('reads variant_sku / variant_inventory_quantity (and sku / inventory_quantity of products without variants)', async () => {
    const { env, writes, stock } = await sandbox();
    const out = join(dir, 'catalog.csv');
    expect((await runCli(['export', 'products', out, '--json'], env, dir)).code).toBe(0);
    let text = readFileSync(out, 'utf8');
    const header = (text.replace(/^\uFEFF/, '').split(/\r?\n/)[0] ?? '').split(',');
    const vq = header.indexOf('variant_inventory_quantity');
    const pq = header.indexOf('inventory_quantity');
    const setCell = (sku: string, index: number, value: string) => {
      text = text
        .split('\n')
        .map((line) => {
          const cells = line.split(',');
          if (!cells.includes(sku)) return line;
          cells[index] = value;
          return cells.join(',');
        })
        .join('\n');
    };
    setCell('TEE-LIN-SND-M', vq, '30'); // a variant: 45 → 30
    setCell('KBT', pq, '71'); // a product without variants: 70 → 71
    writeFileSync(out, text);

    const r = await runCli(['import', 'stock', out, '--apply', '--yes', '--json'], env, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ counts: { change: 2, invalid: 0 } });
    expect(r.stderr).not.toMatch(/is not a stock column/);
    expect(writes()).toHaveLength(1); // one batch
    expect(stock('TEE-LIN-SND-M')).toBe(30);
    expect(stock('KBT')).toBe(71);
    expect(stock('TEE-LIN-SND-S')).toBe(0);
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';
import { fileSandbox, startMcp, type FileSandbox, type McpSession, type ToolAnswer } from './mcp-helpers.js';

// Refusals an assistant can act on: each names the tool argument that lifts it, or says that only
// the server's operator can (with the server flag); no CLI command or flag anywhere. Invalid rows
// come back with their cell and reason; source.file stays inside --files-root. One sandbox and one
// server for the file (a second, with --max-hide, for the operator's side).
let sb: FileSandbox;
let mcp: McpSession;
let cwd: string;

beforeAll(async () => {
  sb = await fileSandbox();
  cwd = mkdtempSync(join(sb.dir, 'work-'));
  mcp = await startMcp(cwd, sb.env);
});
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

/** No CLI command (other than the server's own flags) and no CLI flag in what an assistant reads. */
function speaksTools(text: string): void {
  expect(text, text).not.toMatch(/\bmbulk (?!mcp\b)[a-z]/);
  expect(text, text).not.toMatch(/(?<!mbulk mcp |"operatorFlag":")--[a-z]/);
}

const refused = (a: ToolAnswer): Record<string, unknown> => {
  expect(a.isError, a.text).toBe(true);
  speaksTools(a.text);
  return a.data;
};

/** Products to keep: every one but `drop` of them, by reference (else SKU). */
function keepAllBut(drop: number): string {
  const rows = SAMPLE_STORE.products
    .slice(drop)
    .map((p) => `${p.reference_id ?? ''},${p.reference_id ? '' : p.sku}`);
  return `reference_id,sku\n${rows.join('\n')}\n`;
}

describe('refusals in the tools’ own terms', () => {
  it('hiding more than 10% of the catalog: only the operator lifts it, with the server flag', async () => {
    const planned = await mcp.call('plan_import', {
      kind: 'products',
      source: { csv: keepAllBut(5) },
      missing: 'hide',
    });
    expect(planned.isError, planned.text).toBe(false);
    speaksTools(planned.text);
    const guards = planned.data['guards'] as { guard: string; message: string; operatorFlag: string }[];
    expect(guards).toMatchObject([{ guard: 'removals', allow: null, operatorFlag: '--max-hide' }]);
    expect(guards[0]!.message).toContain('mbulk mcp --max-hide 25%');
    const writes = sb.writes().length;
    const apply = refused(
      await mcp.call('apply_plan', { run_id: planned.data['runId'], plan_hash: planned.data['planHash'] }),
    );
    expect(apply).toMatchObject({ refused: 'removals', operatorFlag: '--max-hide' });
    expect(sb.writes().length).toBe(writes);

    // The operator raises the limit: the same sheet plans and applies (5 of 20 hidden).
    const wide = await startMcp(cwd, sb.env, ['--max-hide', '25%']);
    try {
      expect((await wide.call('whoami')).data['maxHide']).toEqual({ percent: 25, products: null });
      const again = await wide.call('plan_import', {
        kind: 'products',
        source: { csv: keepAllBut(5) },
        missing: 'hide',
      });
      expect(again.data['guards']).toEqual([]);
      const applied = await wide.call('apply_plan', {
        run_id: again.data['runId'],
        plan_hash: again.data['planHash'],
      });
      expect(applied.isError, applied.text).toBe(false);
      expect(applied.data['summary']).toMatchObject({ hidden: 5 });
      for (const p of SAMPLE_STORE.products.slice(0, 5))
        expect(sb.s.store.getProduct(p.id).status).toBe('HIDDEN');
    } finally {
      await wide.close();
    }
  });

  it('deletes, price jumps, drift and an applied run: each names what lifts it', async () => {
    const deletes = await mcp.call('plan_import', {
      kind: 'products',
      source: { csv: keepAllBut(1) },
      missing: 'delete',
    });
    const del = refused(
      await mcp.call('apply_plan', {
        run_id: deletes.data['runId'],
        plan_hash: deletes.data['planHash'],
        allow: { deletes: true },
        reason: 'deletes: asked',
      }),
    );
    expect(del).toMatchObject({ refused: 'deletes', operatorFlag: '--allow-delete' });
    expect(String(del['message'])).toContain('mbulk mcp --allow-delete');

    const jump = await mcp.call('plan_import', {
      kind: 'products',
      source: { records: [{ reference_id: 'ERP-0000005', price: 1590 }] },
    });
    expect((jump.data['priceJumps'] as { first: unknown[] }).first).toMatchObject([
      {
        before: { amount: '15.90', currency: 'MYR' },
        after: { amount: '1590.00', currency: 'MYR' },
      },
    ]);
    const jumped = refused(
      await mcp.call('apply_plan', { run_id: jump.data['runId'], plan_hash: jump.data['planHash'] }),
    );
    expect(jumped).toMatchObject({ refused: 'price-jumps', allow: 'price_jumps' });
    expect(String(jumped['message'])).toContain('allow.price_jumps');
    expect(String(jumped['message'])).toContain('15.90 → 1590.00');

    const stock = await mcp.call('plan_import', { kind: 'stock', source: { csv: 'sku,quantity\nKBT,41\n' } });
    sb.s.store.updateInventoryItem('inv_0000000d', { delta_quantity: -1 });
    const drift = refused(
      await mcp.call('apply_plan', { run_id: stock.data['runId'], plan_hash: stock.data['planHash'] }),
    );
    expect(drift).toMatchObject({ refused: 'drift' });
    expect(String(drift['message'])).toContain('plan_import');

    const fresh = await mcp.call('plan_import', { kind: 'stock', source: { csv: 'sku,quantity\nKBT,42\n' } });
    const request = { run_id: fresh.data['runId'], plan_hash: fresh.data['planHash'] };
    expect((await mcp.call('apply_plan', request)).isError).toBe(false);
    const twice = refused(await mcp.call('apply_plan', request));
    expect(twice).toMatchObject({ refused: 'not-planned' });
    expect(String(twice['message'])).toContain('resume_run');
    const resumed = refused(await mcp.call('resume_run', { run_id: fresh.data['runId'] }));
    expect(String(resumed['message'])).toContain('reconcile: true');
  });

  it('a delta sheet applied once is refused the second time, naming its run; again: true applies it once more', async () => {
    const source = { csv: 'sku,delta_quantity\nHAT-BKT,2\n' };
    const start = sb.s.store.getInventoryItem('inv_0000000x').quantity;
    const first = await mcp.call('plan_import', { kind: 'stock', source });
    expect(first.isError, first.text).toBe(false);
    const applied = await mcp.call('apply_plan', {
      run_id: first.data['runId'],
      plan_hash: first.data['planHash'],
    });
    expect(applied.isError, applied.text).toBe(false);
    const writes = sb.writes().length;
    const twice = refused(await mcp.call('plan_import', { kind: 'stock', source }));
    expect(twice).toMatchObject({
      refused: 'already-applied',
      run: first.data['runId'],
      applied: 1,
      total: 1,
    });
    expect(String(twice['message'])).toContain('again: true');
    expect(sb.writes().length).toBe(writes);
    const again = await mcp.call('plan_import', { kind: 'stock', source, again: true });
    expect(again.isError, again.text).toBe(false);
    expect(
      (await mcp.call('apply_plan', { run_id: again.data['runId'], plan_hash: again.data['planHash'] }))
        .isError,
    ).toBe(false);
    expect(sb.s.store.getInventoryItem('inv_0000000x').quantity).toBe(start + 4);
  });

  it("another platform's export whose new products have no category names category_map, default_category and no_category", async () => {
    copyFileSync(
      join(import.meta.dirname, '../../fixtures/corpus/woocommerce/sample_products.csv'),
      join(cwd, 'woo.csv'),
    );
    const writes = sb.writes().length;
    const first = await mcp.call('plan_import', { kind: 'products', source: { file: 'woo.csv' } });
    expect(first.isError, first.text).toBe(false);
    // plan_import says so among its guards, in the tool's terms (issue 38: it listed none).
    const guards = first.data['guards'] as { guard: string; message: string; allow: unknown }[];
    const noCategory = guards.find((g) => g.guard === 'no-category');
    expect(noCategory, JSON.stringify(guards)).toMatchObject({ allow: null, operatorFlag: null });
    for (const arg of ['category_map', 'default_category', 'no_category: true'])
      expect(noCategory?.message).toContain(arg);
    expect(noCategory?.message).not.toMatch(/--[a-z]/);
    const refusal = refused(
      await mcp.call('apply_plan', { run_id: first.data['runId'], plan_hash: first.data['planHash'] }),
    );
    const message = JSON.stringify(refusal);
    for (const arg of ['category_map', 'default_category', 'no_category: true'])
      expect(message).toContain(arg);
    expect(sb.writes().length).toBe(writes);
    // Chosen through the tool's arguments, the plan is applied.
    const chosen = await mcp.call('plan_import', {
      kind: 'products',
      source: { file: 'woo.csv' },
      default_category: 'cat_0001',
    });
    expect(chosen.isError, chosen.text).toBe(false);
    expect((chosen.data['guards'] as { guard: string }[]).map((g) => g.guard)).not.toContain('no-category');
    const applied = await mcp.call('apply_plan', {
      run_id: chosen.data['runId'],
      plan_hash: chosen.data['planHash'],
    });
    expect(applied.isError, applied.text).toBe(false);
    expect(sb.writes().length).toBeGreaterThan(writes);
  });

  it("a Square export's stock from one location: location, in the tools' terms (an unknown one named with the export's locations)", async () => {
    copyFileSync(
      join(import.meta.dirname, '../../fixtures/corpus/square/thescottyb_catalog-2025-06-09_extract.csv'),
      join(cwd, 'square.csv'),
    );
    const summed = await mcp.call('plan_import', { kind: 'products', source: { file: 'square.csv' } });
    expect(summed.isError, summed.text).toBe(false);
    speaksTools(summed.text);
    const unknown = refused(
      await mcp.call('plan_import', {
        kind: 'products',
        source: { file: 'square.csv' },
        location: 'Back room',
      }),
    );
    expect(String(unknown['message'])).toContain(
      'location "Back room" is not a location of this Square export; its locations: "RRV Richmond", "TVM McHenry"',
    );
    speaksTools(JSON.stringify(unknown));
    const one = await mcp.call('plan_import', {
      kind: 'products',
      source: { file: 'square.csv' },
      location: 'TVM McHenry',
    });
    expect(one.isError, one.text).toBe(false);
  });

  it('an empty sheet and unknown stock name their plan_import arguments', async () => {
    const empty = refused(
      await mcp.call('plan_import', { kind: 'stock', source: { csv: 'sku,quantity\n' } }),
    );
    expect(String(empty['message'])).toContain('allow_empty: true');
    const unknown = await mcp.call('plan_import', {
      kind: 'products',
      source: { csv: 'reference_id,name,price,inventory_enabled\nNEW-1,New tee,19.90,true\n' },
    });
    speaksTools(unknown.text);
    expect(unknown.data['guards']).toMatchObject([{ guard: 'stock-unknown' }]);
    expect(JSON.stringify(unknown.data['guards'])).toContain('stock_unknown');
  });

  it('stock_unknown chooses per product as the command line does: KEY=MODE entries and one mode for the others', async () => {
    const csv =
      'reference_id,name,price,inventory_enabled\nMCP-KEY-1,Key tee,19.90,true\nMCP-KEY-2,Key cap,9.90,true\n';
    // One product's own choice: the other is still unchosen, and applying is refused.
    const one = await mcp.call('plan_import', {
      kind: 'products',
      source: { csv },
      stock_unknown: ['MCP-KEY-1=zero'],
    });
    expect(one.isError, one.text).toBe(false);
    speaksTools(one.text);
    expect(one.data['guards']).toMatchObject([{ guard: 'stock-unknown' }]);
    expect(JSON.stringify(one.data['guards'])).toContain('KEY=MODE');

    // With a mode for the others, nothing is refused; each product is created as chosen.
    const both = await mcp.call('plan_import', {
      kind: 'products',
      source: { csv },
      stock_unknown: ['MCP-KEY-1=zero', 'untracked'],
    });
    expect(both.isError, both.text).toBe(false);
    expect(both.data['guards']).toEqual([]);
    const applied = await mcp.call('apply_plan', {
      run_id: both.data['runId'],
      plan_hash: both.data['planHash'],
    });
    expect(applied.isError, applied.text).toBe(false);
    const made = sb.s.store.toSnapshot().products.filter((p) => p.reference_id?.startsWith('MCP-KEY-'));
    const byRef = new Map(made.map((p) => [p.reference_id, p]));
    expect(byRef.get('MCP-KEY-1')).toMatchObject({ inventory_enabled: true, inventory: { quantity: 0 } });
    expect(byRef.get('MCP-KEY-2')).toMatchObject({ inventory_enabled: false });

    // A value that is neither a mode nor KEY=MODE is refused in the tools' terms, nothing planned.
    const bad = refused(
      await mcp.call('plan_import', { kind: 'products', source: { csv }, stock_unknown: ['MCP-KEY-1:zero'] }),
    );
    expect(bad).toMatchObject({ error: 'usage' });
    expect(String(bad['message'])).toContain('stock_unknown takes untracked, zero or keep');
  });
});

describe('invalid rows and bounded resources', () => {
  it('plan_import returns the first 20 invalid rows with their cell and reason, and the count', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => `ERP-0000012,"1${i % 9},90"`);
    const planned = await mcp.call('plan_import', {
      kind: 'products',
      source: { csv: `reference_id,price\n${rows.join('\n')}\n` },
    });
    expect(planned.isError, planned.text).toBe(false);
    speaksTools(planned.text);
    const invalid = planned.data['invalidRows'] as { count: number; first: Record<string, unknown>[] };
    expect(invalid.count).toBeGreaterThanOrEqual(1200);
    expect(invalid.first).toHaveLength(20);
    expect(invalid.first[0]).toMatchObject({
      sheet: 'inline-products.csv',
      row: 2,
      column: 'B',
      header: 'price',
    });
    expect(String(invalid.first[0]!['message'])).toContain('decimal_comma: true');
    expect(planned.text.length).toBeLessThan(40_000);

    // Its report is a resource a page at a time, each page bounded.
    const uri = `mbulk://runs/${String(planned.data['runId'])}/report.md`;
    const first = await mcp.client.readResource({ uri });
    const page = first.contents[0] as unknown as { text: string; _meta: { pages: number; next: string } };
    expect(page.text.length).toBeLessThanOrEqual(64_100);
    expect(page._meta.pages).toBeGreaterThan(1);
    const second = await mcp.client.readResource({ uri: page._meta.next });
    expect((second.contents[0] as { text: string }).text.length).toBeGreaterThan(0);
  });
});

describe('source.file stays inside the files root', () => {
  it('reads a file inside it; refuses .., absolute paths outside and symlinks leaving it, planning nothing', async () => {
    mkdirSync(join(cwd, 'sheets'), { recursive: true });
    writeFileSync(join(cwd, 'sheets', 'stock.csv'), 'sku,quantity\nKBT,50\n');
    const outside = mkdtempSync(join(sb.dir, 'outside-'));
    writeFileSync(join(outside, 'secret.csv'), 'sku,quantity\nKBT,1\n');
    symlinkSync(join(outside, 'secret.csv'), join(cwd, 'sheets', 'link.csv'));
    const inside = await mcp.call('plan_import', { kind: 'stock', source: { file: 'sheets/stock.csv' } });
    expect(inside.isError, inside.text).toBe(false);
    const runs = readdirSync(join(cwd, '.mbulk', 'runs')).length;
    for (const file of [
      `../${outside.split('/').pop()}/secret.csv`,
      join(outside, 'secret.csv'),
      'sheets/link.csv',
      '/etc/passwd',
    ]) {
      const r = await mcp.call('plan_import', { kind: 'stock', source: { file } });
      expect(r.isError, file).toBe(true);
      expect(r.data['message']).toMatch(/outside the files root/);
      expect(r.text).not.toContain('KBT,1');
    }
    expect(readdirSync(join(cwd, '.mbulk', 'runs')).length).toBe(runs);
  });
});

import { mkdtempSync, readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp, fileSandbox, type FileSandbox, type McpSession } from './mcp-helpers.js';

// One sandbox and one server for the file: `mbulk mcp` (the built binary) driven by the SDK's own
// client over stdio, as an assistant's client would.
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

describe('mbulk mcp', () => {
  it('lists its tools, each with an input and an output schema', async () => {
    const { tools } = await mcp.client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(
      [
        'apply_plan',
        'export',
        'list_runs',
        'plan_import',
        'resume_run',
        'rollback_run',
        'run_status',
        'show_plan',
        'whoami',
      ].sort(),
    );
    for (const t of tools) expect(t.outputSchema, t.name).toBeDefined();
  });

  it('whoami names the store and the target, never the token', async () => {
    const me = await mcp.call('whoami');
    expect(me.isError).toBe(false);
    expect(me.data['store']).toMatchObject({ id: sb.s.store.getMe().id });
    expect(me.data['target']).toBe(sb.s.url);
    expect(me.data['maxChanges']).toBe(500);
    expect(me.text).not.toContain(sb.s.token);
  });

  it('plans a stock sheet given inline, shows it, and applies it with its hash', async () => {
    const before = sb.s.store.getInventoryItem('inv_0000000d').quantity;
    const planned = await mcp.call('plan_import', {
      kind: 'stock',
      source: { csv: 'sku,quantity\nKBT,12\nHAT-BKT,15\n' },
    });
    expect(planned.isError, planned.text).toBe(false);
    expect(planned.data).toMatchObject({ kind: 'stock', writes: 1, guards: [] });
    expect(planned.data['firstChanges']).toEqual([
      {
        index: 0,
        action: 'update',
        entity: 'inventory_item',
        id: 'inv_0000000d',
        label: 'KBT',
        sheet: 'inline-stock.csv',
        row: 2,
        fields: [{ field: 'quantity', before, after: 12 }],
      },
    ]);
    const runId = String(planned.data['runId']);
    const hash = String(planned.data['planHash']);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(String(planned.data['reviewPage'])).toMatch(/report\.html$/);
    // Planning wrote nothing.
    expect(sb.writes()).toEqual([]);

    const shown = await mcp.call('show_plan', { run_id: runId, search: 'kbt' });
    expect(shown.data).toMatchObject({
      runId,
      total: 1,
      planHash: hash,
      nextOffset: null,
      status: 'planned',
    });

    const applied = await mcp.call('apply_plan', { run_id: runId, plan_hash: hash });
    expect(applied.isError, applied.text).toBe(false);
    expect(applied.data).toMatchObject({ runId, status: 'completed', ok: true });
    expect(sb.s.store.getInventoryItem('inv_0000000d').quantity).toBe(12);
    expect(sb.s.store.getInventoryItem('inv_0000000x').quantity).toBe(15);

    const status = await mcp.call('run_status', { run_id: runId });
    expect(status.data).toMatchObject({ id: runId, kind: 'stock', status: 'applied' });
    const runs = await mcp.call('list_runs');
    expect((runs.data['runs'] as { id: string }[])[0]?.id).toBe(runId);
    // Applied once: applying again is refused by the library (not planned any more).
    const again = await mcp.call('apply_plan', { run_id: runId, plan_hash: hash });
    expect(again).toMatchObject({ isError: true, data: { refused: 'not-planned' } });
  });

  it('refuses a wrong hash and a stale one (the store drifted since planning)', async () => {
    const planned = await mcp.call('plan_import', {
      kind: 'stock',
      source: { records: [{ sku: 'KBT', quantity: 30 }] },
    });
    const runId = String(planned.data['runId']);
    const wrong = await mcp.call('apply_plan', { run_id: runId, plan_hash: '0'.repeat(64) });
    expect(wrong).toMatchObject({ isError: true, data: { error: 'refused', refused: 'plan-hash' } });
    // Another run's hash is wrong too.
    const other = await mcp.call('plan_import', { kind: 'stock', source: { csv: 'sku,quantity\nKBT,31\n' } });
    const crossed = await mcp.call('apply_plan', { run_id: runId, plan_hash: other.data['planHash'] });
    expect(crossed.data['refused']).toBe('plan-hash');
    // Someone sells one meanwhile: the plan is stale, and the drift check refuses it.
    sb.s.store.updateInventoryItem('inv_0000000d', { delta_quantity: -1 });
    const writes = sb.writes().length;
    const stale = await mcp.call('apply_plan', { run_id: runId, plan_hash: planned.data['planHash'] });
    expect(stale).toMatchObject({ isError: true, data: { error: 'refused', refused: 'drift' } });
    expect(sb.writes().length).toBe(writes);
  });
});

describe('mbulk mcp guards', () => {
  it('refuses a ×100 price plan with the reason until allow.price_jumps is given and named in the reason', async () => {
    const planned = await mcp.call('plan_import', {
      kind: 'products',
      source: { records: [{ reference_id: 'ERP-0000001', price: 1190 }] },
    });
    expect(planned.isError, planned.text).toBe(false);
    expect(planned.data['guards']).toMatchObject([{ guard: 'price-jumps', allow: 'price_jumps' }]);
    const request = { run_id: planned.data['runId'], plan_hash: planned.data['planHash'] };
    const writes = sb.writes().length;
    const refused = await mcp.call('apply_plan', request);
    expect(refused).toMatchObject({ isError: true, data: { refused: 'price-jumps', allow: 'price_jumps' } });
    expect(String(refused.data['message'])).toMatch(/×10 or more/);
    // The flag alone is not enough: the reason must name it.
    const unexplained = await mcp.call('apply_plan', { ...request, allow: { price_jumps: true } });
    expect(unexplained.data['refused']).toBe('reason-missing');
    expect(sb.writes().length).toBe(writes);
    expect(sb.s.store.getProduct('prod_00000001').price).toBe(1190);
    const allowed = await mcp.call('apply_plan', {
      ...request,
      allow: { price_jumps: true },
      reason: 'price_jumps: the owner confirmed the new price of 1190.00',
    });
    expect(allowed.isError, allowed.text).toBe(false);
    expect(sb.s.store.getProduct('prod_00000001').price).toBe(119000);
  });

  it('refuses a plan that deletes a product on a server started without --allow-delete', async () => {
    // Every product but the first (by reference, else by SKU): `missing: delete` deletes the first.
    const keep = SAMPLE_STORE.products
      .slice(1)
      .map((p) => `${p.reference_id ?? ''},${p.reference_id ? '' : p.sku}`);
    const planned = await mcp.call('plan_import', {
      kind: 'products',
      source: { csv: `reference_id,sku\n${keep.join('\n')}\n` },
      missing: 'delete',
    });
    expect(planned.isError, planned.text).toBe(false);
    expect(planned.data['guards']).toMatchObject([
      { guard: 'deletes', allow: null, operatorFlag: '--allow-delete' },
    ]);
    const writes = sb.writes().length;
    const refused = await mcp.call('apply_plan', {
      run_id: planned.data['runId'],
      plan_hash: planned.data['planHash'],
      allow: { deletes: true },
      reason: 'deletes: the owner asked',
    });
    expect(refused).toMatchObject({
      isError: true,
      data: { refused: 'deletes', operatorFlag: '--allow-delete' },
    });
    expect(sb.writes().length).toBe(writes);
    expect(sb.s.store.getProduct(SAMPLE_STORE.products[0]!.id).id).toBeDefined();
  });

  it('refuses more changes than --max-changes allows (the assistant cannot lift it)', async () => {
    const items = SAMPLE_STORE.products
      .filter((p) => p.inventory_enabled)
      .flatMap((p) => [p.inventory, ...(p.variants ?? []).map((v) => v.inventory)])
      .filter((i): i is NonNullable<typeof i> => i != null && i.sku !== null);
    const small = await startMcp(cwd, sb.env, ['--max-changes', '2']);
    try {
      const planned = await small.call('plan_import', {
        kind: 'stock',
        source: { records: items.slice(0, 3).map((i) => ({ sku: i.sku, quantity: i.quantity + 1 })) },
      });
      expect((planned.data['guards'] as unknown[])[0]).toMatchObject({
        guard: 'max-changes',
        operatorFlag: '--max-changes',
      });
      const refused = await small.call('apply_plan', {
        run_id: planned.data['runId'],
        plan_hash: planned.data['planHash'],
        allow: { price_jumps: true, deletes: true },
        reason: 'price_jumps deletes',
      });
      expect(refused.data['refused']).toBe('max-changes');
    } finally {
      await small.close();
    }
  });

  it('--read-only lists no tool that writes', async () => {
    const ro = await startMcp(cwd, sb.env, ['--read-only']);
    try {
      const names = (await ro.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('plan_import');
      expect(names).toContain('export');
      for (const name of ['apply_plan', 'resume_run']) expect(names).not.toContain(name);
    } finally {
      await ro.close();
    }
  });
});

describe('mbulk mcp export', () => {
  it('returns figures that tie to the file it wrote', async () => {
    const r = await mcp.call('export', { kind: 'stock', format: 'csv' });
    expect(r.isError, r.text).toBe(false);
    const [file] = r.data['files'] as string[];
    const rows = readFileSync(file!, 'utf8').trim().split('\n').slice(1);
    expect((r.data['figures'] as { items: number }).items).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(0);
    const orders = await mcp.call('export', { kind: 'orders', format: 'csv' });
    expect(orders.isError, orders.text).toBe(false);
    const figures = orders.data['figures'] as { orders: number };
    const orderRows = Papa.parse<Record<string, string>>(
      readFileSync((orders.data['files'] as string[])[0]!, 'utf8'),
      {
        header: true,
        skipEmptyLines: true,
      },
    ).data;
    expect(orderRows.length).toBe(figures.orders);
    expect(figures.orders).toBe(SAMPLE_STORE.orders.length);
  });

  it('never puts the token in a result', async () => {
    for (const [name, args] of [
      ['whoami', {}],
      ['list_runs', {}],
      ['plan_import', { kind: 'stock', source: { file: 'missing.csv' } }],
      ['apply_plan', { run_id: 'nope', plan_hash: 'x' }],
    ] as const) {
      const r = await mcp.call(name, args);
      expect(r.text).not.toContain(sb.s.token);
    }
    expect(mcp.stderr()).not.toContain(sb.s.token);
  });
});

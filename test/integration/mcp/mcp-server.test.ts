import { mkdtempSync } from 'node:fs';
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

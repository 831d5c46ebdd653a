import { mkdtempSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSandbox, startMcp, type FileSandbox, type McpSession, type ToolAnswer } from './mcp-helpers.js';

// Every kind an assistant can import (products, stock, customers) through plan_import, show_plan,
// apply_plan, then rollback_run and apply_plan of the rollback with its hash: the SDK's own client
// against the built `mbulk mcp`, one server and one sandbox for the file. Amounts come back in
// currency units with their currency, as the sheets and files write them.
const SAMPLES = resolve(import.meta.dirname, '../../../samples');
let sb: FileSandbox;
let mcp: McpSession;

beforeAll(async () => {
  sb = await fileSandbox();
  mcp = await startMcp(mkdtempSync(join(sb.dir, 'work-')), sb.env);
});
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

const ok = (a: ToolAnswer): Record<string, unknown> => {
  expect(a.isError, a.text).toBe(false);
  return a.data;
};

/** plan_import → show_plan → apply_plan with the hash. */
async function planShowApply(args: Record<string, unknown>) {
  const planned = ok(await mcp.call('plan_import', args));
  const runId = String(planned['runId']);
  const hash = String(planned['planHash']);
  const shown = ok(await mcp.call('show_plan', { run_id: runId }));
  expect(shown).toMatchObject({ runId, planHash: hash, status: 'planned' });
  const writes = sb.writes().length;
  const applied = ok(await mcp.call('apply_plan', { run_id: runId, plan_hash: hash }));
  expect(applied, JSON.stringify(applied)).toMatchObject({ runId, status: 'completed', ok: true });
  expect(sb.writes().length).toBeGreaterThan(writes);
  return { planned, shown, runId };
}

/** rollback_run → show_plan → apply_plan of the rollback with its hash. */
async function rollBack(runId: string) {
  const rollback = ok(await mcp.call('rollback_run', { run_id: runId }));
  expect(rollback['kind']).toBe('rollback');
  const rollbackId = String(rollback['runId']);
  const shown = ok(await mcp.call('show_plan', { run_id: rollbackId }));
  expect(shown['total']).toBe(rollback['writes']);
  const applied = ok(await mcp.call('apply_plan', { run_id: rollbackId, plan_hash: rollback['planHash'] }));
  expect(applied).toMatchObject({ runId: rollbackId, kind: 'rollback', status: 'completed', ok: true });
  return { rollback, shown };
}

describe('every kind through every tool', () => {
  it('products: plan, show, apply, roll back; prices in currency units', async () => {
    const { planned, shown, runId } = await planShowApply({
      kind: 'products',
      source: { csv: 'reference_id,price\nERP-0000012,32.50\n' },
    });
    const change = {
      action: 'update',
      entity: 'product',
      id: 'prod_0000000c',
      label: 'ERP-0000012',
      row: 2,
      fields: [
        {
          field: 'price',
          before: { amount: '31.90', currency: 'MYR' },
          after: { amount: '32.50', currency: 'MYR' },
        },
      ],
    };
    expect(planned['firstChanges']).toMatchObject([change]);
    expect(shown['changes']).toMatchObject([change]);
    expect(sb.s.store.getProduct('prod_0000000c').price).toBe(3250);

    const { rollback, shown: restoring } = await rollBack(runId);
    const restore = {
      action: 'restore',
      entity: 'product',
      id: 'prod_0000000c',
      fields: [
        {
          field: 'price',
          before: { amount: '32.50', currency: 'MYR' },
          after: { amount: '31.90', currency: 'MYR' },
        },
      ],
    };
    expect(rollback['firstChanges']).toMatchObject([restore]);
    expect(restoring['changes']).toMatchObject([restore]);
    expect(sb.s.store.getProduct('prod_0000000c').price).toBe(3190);
  });

  it('stock: plan, show, apply, roll back', async () => {
    const before = sb.s.store.getInventoryItem('inv_0000000x').quantity;
    const { planned, runId } = await planShowApply({
      kind: 'stock',
      source: { records: [{ sku: 'HAT-BKT', quantity: before + 7 }] },
    });
    expect(planned['firstChanges']).toMatchObject([
      {
        action: 'update',
        entity: 'inventory_item',
        id: 'inv_0000000x',
        label: 'HAT-BKT',
        fields: [{ field: 'quantity', before, after: before + 7 }],
      },
    ]);
    expect(sb.s.store.getInventoryItem('inv_0000000x').quantity).toBe(before + 7);
    const { rollback } = await rollBack(runId);
    expect(rollback['firstChanges']).toMatchObject([
      {
        action: 'restore',
        id: 'inv_0000000x',
        fields: [{ field: 'quantity', before: before + 7, after: before }],
      },
    ]);
    expect(sb.s.store.getInventoryItem('inv_0000000x').quantity).toBe(before);
  });

  it('customers: plan (a create and an update), show, apply, roll back the update', async () => {
    const { planned, shown, runId } = await planShowApply({
      kind: 'customers',
      source: {
        csv: 'id,name,phone,email\ncus_00000001,Ganesh a/l Pillai,60190961188,ganesh@new.example.org\n,Siti Aminah,0123456789,siti@example.org\n',
      },
    });
    const changes = planned['firstChanges'] as { action: string; fields: { field: string }[] }[];
    expect(changes.map((c) => c.action).sort()).toEqual(['create', 'update']);
    expect(shown['total']).toBe(2);
    expect(changes.find((c) => c.action === 'update')).toMatchObject({
      entity: 'customer',
      id: 'cus_00000001',
      row: 2,
      fields: [{ field: 'email', before: 'ganesh.al.pillai1@example.org', after: 'ganesh@new.example.org' }],
    });
    expect(sb.s.store.getCustomer('cus_00000001').email).toBe('ganesh@new.example.org');
    const { rollback } = await rollBack(runId);
    expect(rollback['firstChanges']).toMatchObject([
      {
        action: 'restore',
        entity: 'customer',
        id: 'cus_00000001',
        fields: [
          { field: 'email', before: 'ganesh@new.example.org', after: 'ganesh.al.pillai1@example.org' },
        ],
      },
    ]);
    expect(sb.s.store.getCustomer('cus_00000001').email).toBe('ganesh.al.pillai1@example.org');
  });

  it('templates and messages: plan, show and apply; a send cannot be rolled back, and says so', async () => {
    const templates = readFileSync(join(SAMPLES, 'message-templates.csv'), 'utf8');
    const { planned, runId } = await planShowApply({ kind: 'templates', source: { csv: templates } });
    expect((planned['firstChanges'] as unknown[]).slice(0, 2)).toMatchObject([
      { action: 'create', entity: 'template', label: 'order_shipped', row: 2 },
      { action: 'create', entity: 'template', label: 'new_arrivals', row: 3 },
    ]);
    expect(sb.s.store.getTemplate('order_shipped')).toBeDefined();
    expect(runId).toContain('templates');

    const sends = await planShowApply({
      kind: 'messages',
      template: 'order_update',
      source: { records: [{ to: '012-784 1025', name: 'Siti', order_number: '1001' }] },
    });
    expect(sends.planned['firstChanges']).toMatchObject([
      {
        action: 'send',
        entity: 'message',
        row: 2,
        fields: [
          { field: 'template', after: 'order_update' },
          { field: 'name', after: 'Siti' },
          { field: 'order_number', after: '1001' },
        ],
      },
    ]);
    const rollback = await mcp.call('rollback_run', { run_id: sends.runId });
    expect(rollback.isError, rollback.text).toBe(false);
    expect(rollback.data).toMatchObject({ writes: 0, notReversible: { count: 1 } });
    expect(rollback.text).not.toMatch(/\bmbulk (?!mcp\b)[a-z]/);
  });

  it('whoami gives the currency with its decimals', async () => {
    expect(ok(await mcp.call('whoami'))).toMatchObject({ currency: 'MYR', decimals: 2 });
  });
});

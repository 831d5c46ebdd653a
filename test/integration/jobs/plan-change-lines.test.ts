import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import {
  applyCustomerRun,
  describeCustomerChange,
  planCustomerImport,
} from '../../../src/jobs/customers/customer-import.js';
import { describeProductEntry, writeEntries } from '../../../src/jobs/products/product-report.js';
import { applyProductRun, planProductImport } from '../../../src/jobs/products/product-import.js';
import { readPlanChanges } from '../../../src/jobs/read-plan-changes.js';
import { formatRestoreValue, restoreLines } from '../../../src/jobs/rollback/rollback-report.js';
import { planRollback } from '../../../src/jobs/rollback/rollback-run.js';
import { applyStockRun, describeStockChange, planStockImport } from '../../../src/jobs/stock/stock-import.js';
import { describeChange } from '../../../src/plan/describe-changes.js';
import {
  customerPlanChanges,
  productPlanChanges,
  rollbackPlanChanges,
  stockPlanChanges,
  type PlanChange,
} from '../../../src/plan/plan-changes.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { StoreSnapshot } from '../../../src/schema/snapshot.js';

/**
 * The terminal and the MCP tools read a plan's changes through one reader (plan/plan-changes.ts).
 * For every kind, a real plan (the planner's own output, saved and read back through the kind's
 * plan schema, as `show_plan` does) must give each field a name and both values, the same as the
 * plan in memory, and the terminal's lines must show exactly those fields and values. A reader that
 * looks for a field under another name than its planner writes (customers' `field` read as `path`,
 * a rollback's `now`/`restore` read as `before`/`after`) fails here.
 */

const SAMPLES = resolve(import.meta.dirname, '../../../samples');
const sampleStore = (): StoreSnapshot =>
  StoreSnapshot.parse(JSON.parse(readFileSync(join(SAMPLES, 'store.json'), 'utf8')));

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function setup() {
  sandbox = await startSandbox({ seed: sampleStore() });
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-change-lines-'));
  return { client, runsRoot: join(dir, 'runs') };
}

/** Every field has its name and both values (null allowed, never missing); the plan has some. */
function expectWholeFields(changes: readonly PlanChange[]): void {
  expect(changes.length).toBeGreaterThan(0);
  expect(changes.some((c) => c.fields.length > 0)).toBe(true);
  for (const c of changes) {
    expect(typeof c.label, JSON.stringify(c)).toBe('string');
    for (const f of c.fields) {
      expect(typeof f.field === 'string' && f.field !== '', JSON.stringify(f)).toBe(true);
      if (f.note !== undefined) continue;
      expect(f.before, `${c.label} ${f.field} before`).not.toBeUndefined();
      expect(f.after, `${c.label} ${f.field} after`).not.toBeUndefined();
    }
  }
}

/** What the MCP reads from plan.json (through the kind's schema) is what the planner made. */
function expectSavedAsPlanned(run: RunDirectory, inMemory: readonly PlanChange[]): PlanChange[] {
  const saved = readPlanChanges(RunDirectory.load(run.dir)).changes;
  expect(saved).toEqual(JSON.parse(JSON.stringify(inMemory)));
  expectWholeFields(saved);
  return saved;
}

function expectNoUndefined(lines: readonly string[]): void {
  expect(lines.length).toBeGreaterThan(0);
  for (const l of lines) expect(l).not.toMatch(/undefined|\[object Object\]/);
}

describe('one reader of a plan change for the terminal and the MCP tools, per kind', () => {
  it('products: each update line is the reader’s field, before and after (money in currency units)', async () => {
    const { client, runsRoot } = await setup();
    const planned = await planProductImport({
      client,
      file: join(SAMPLES, 'catalog.csv'),
      runsRoot,
      target: 'test',
    });
    const { plan } = planned.file;
    const changes = expectSavedAsPlanned(planned.run, productPlanChanges(plan));
    expect(changes.some((c) => c.fields.some((f) => f.money === true))).toBe(true);
    const entries = writeEntries(plan);
    expect(entries.some((e) => e.action === 'update')).toBe(true);
    for (const [n, entry] of entries.entries()) {
      const lines = describeProductEntry(entry, plan.decimals);
      expectNoUndefined(lines);
      const fields = changes[n]!.fields;
      expect(changes[n]!.label).toBe(entry.label);
      if (fields.length === 0) continue;
      expect(lines.map((l) => l.slice(l.indexOf(': ') + 2))).toEqual(
        fields.map((f) => describeChange(f, plan.decimals)),
      );
    }
    // A price as the sheet writes it: 12.50, not 1250.
    const latte = entries.findIndex((e) => e.label === 'ERP-0000001');
    expect(describeProductEntry(entries[latte]!, plan.decimals).join('\n')).toContain('price: 11.90 → 12.50');
  });

  it('customers: each line shows the reader’s fields and values', async () => {
    const { client, runsRoot } = await setup();
    const planned = await planCustomerImport({
      client,
      file: join(SAMPLES, 'customers.csv'),
      runsRoot,
      target: 'test',
    });
    const { plan } = planned.file;
    const changes = expectSavedAsPlanned(planned.run, customerPlanChanges(plan));
    const written = plan.entries.filter((e) => e.action === 'create' || e.action === 'update');
    expect(written.map((e) => e.action)).toContain('create');
    expect(written.map((e) => e.action)).toContain('update');
    for (const [n, entry] of written.entries()) {
      const line = describeCustomerChange(entry);
      expectNoUndefined([line]);
      for (const f of changes[n]!.fields) {
        expect(line).toContain(`${f.field}: `);
        if (f.after !== null && f.after !== '') expect(line).toContain(String(f.after));
        if (entry.action === 'update' && f.before !== null && f.before !== '')
          expect(line).toContain(`${String(f.before)} → `);
      }
    }
  });

  it('stock: each line shows the reader’s quantity before and after', async () => {
    const { client, runsRoot } = await setup();
    const planned = await planStockImport({
      client,
      file: join(SAMPLES, 'stock.csv'),
      runsRoot,
      target: 'test',
    });
    const { plan } = planned.file;
    const changes = expectSavedAsPlanned(planned.run, stockPlanChanges(plan));
    for (const [n, c] of plan.changes.entries()) {
      const line = describeStockChange(c);
      expectNoUndefined([line]);
      const [quantity] = changes[n]!.fields;
      expect(quantity?.field).toBe('quantity');
      expect(line).toContain(`: ${String(quantity?.before)} → ${String(quantity?.after)}`);
    }
  });

  it('rollbacks of products, customers and stock: each line shows the reader’s fields, now → restored', async () => {
    const { client, runsRoot } = await setup();
    const products = await planProductImport({
      client,
      file: join(SAMPLES, 'catalog.csv'),
      runsRoot,
      target: 'test',
    });
    await applyProductRun(products.run, { client });
    const customers = await planCustomerImport({
      client,
      file: join(SAMPLES, 'customers.csv'),
      runsRoot,
      target: 'test',
    });
    await applyCustomerRun(customers.run, { client });
    const stock = await planStockImport({
      client,
      file: join(SAMPLES, 'stock.csv'),
      runsRoot,
      target: 'test',
    });
    await applyStockRun(stock.run, { client });

    const entities = new Set<string>();
    for (const source of [stock.run, customers.run, products.run]) {
      const planned = await planRollback(source, { client, runsRoot, deleteCreated: true });
      const { file } = planned;
      const changes = expectSavedAsPlanned(planned.run, rollbackPlanChanges(file.restores));
      const lines = restoreLines(file);
      expectNoUndefined(lines);
      const text = lines.join('\n');
      for (const c of changes) {
        entities.add(`${c.entity} ${c.action}`);
        expect(text).toContain(c.label);
        for (const f of c.fields) {
          const show = (v: unknown) => formatRestoreValue(f.field, v, file.store.decimals);
          expect(text).toContain(
            c.entity === 'inventory_item'
              ? `${show(f.before)} → ${show(f.after)}`
              : `${f.field}: ${show(f.before)} → ${show(f.after)}`,
          );
        }
      }
    }
    expect([...entities].sort()).toEqual([
      'customer restore',
      'inventory_item restore',
      'product delete',
      'product restore',
    ]);
  });
});

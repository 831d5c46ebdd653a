import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Papa from 'papaparse';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MerchantClient } from '../../../../src/api/merchant-client.js';
import { readPlanFile } from '../../../../src/jobs/runner/plan-file.js';
import { runJob } from '../../../../src/jobs/runner/run-job.js';
import { cliSummaryOf } from '../../../../src/jobs/runner/summary-fields.js';
import { planProductImport } from '../../../../src/jobs/products/plan-product-import.js';
import { productJob } from '../../../../src/jobs/products/product-job.js';
import { ProductPlanFileSchema } from '../../../../src/jobs/products/product-plan-file.js';
import type { Product, ProductCreate, ProductUpdate, StoreSnapshot } from '../../../../src/schema/index.js';

const SAMPLE = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../../../samples/store.json'), 'utf8'),
) as StoreSnapshot;

/** Four live products of the sample store, without variants or options (one row each). */
const live: Product[] = SAMPLE.products.slice(0, 4).map((p) => ({ ...p, variants: [], options: [] }));
const [p1, p2, p3, p4] = live as [Product, Product, Product, Product];

let dir: string;
let sent: string[];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-product-job-'));
  sent = [];
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A client of the sample store that lists the four products and answers writes as the service
 * would, except an update of the second product: a 400.
 */
const client = {
  me: () => Promise.resolve(SAMPLE.me),
  products: {
    list: async function* () {
      yield* live;
    },
    listEvery: async function* () {
      yield* live;
    },
    create: (body: ProductCreate) => {
      sent.push(`create ${body.reference_id}`);
      return Promise.resolve({ ...p1, ...body, id: 'prod_new', variants: [], options: [], images: [] });
    },
    update: (id: string, body: ProductUpdate) => {
      sent.push(`update ${id}`);
      if (id === p2.id) {
        const e = Object.assign(new Error('price is not accepted'), { status: 400, code: 'price_invalid' });
        return Promise.reject(e);
      }
      const p = live.find((x) => x.id === id) as Product;
      return Promise.resolve({ ...p, ...body, variants: [], options: [] });
    },
    delete: (id: string) => {
      sent.push(`delete ${id}`);
      return Promise.resolve();
    },
  },
} as unknown as MerchantClient;

function readCsv(file: string): Record<string, string>[] {
  const text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  return Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
}

/** A products sheet and an options file: a create, two updates, a hide; the fourth product left out. */
async function planned() {
  const products = path.join(dir, 'products.csv');
  fs.writeFileSync(
    products,
    [
      'reference_id,name,price,command',
      'NEW-1,New thing,5.00,',
      `${p1.reference_id},,13.00,`,
      `${p2.reference_id},,14.00,`,
      `${p3.reference_id},,,hide`,
    ].join('\n'),
  );
  const options = path.join(dir, 'options.csv');
  fs.writeFileSync(
    options,
    [
      'reference_id,option_type,option_text,option_required',
      `${p1.reference_id},OPTION_TEXT,Note,false`,
      `${p2.reference_id},OPTION_TEXT,Note,false`,
    ].join('\n'),
  );
  return planProductImport({
    client,
    file: products,
    optionsFile: options,
    runsRoot: path.join(dir, 'runs'),
    target: 'test',
    missing: 'delete',
    allowDeletes: true,
  });
}

describe('products on the runner: one outcome per product, counts from the tally', () => {
  it('counts each product by what it did (created, updated, hidden, deleted, failed)', async () => {
    const { run } = await planned();
    const summary = await runJob(run, productJob, { client, concurrency: 1 });
    expect(sent.sort()).toEqual(
      [`create NEW-1`, `update ${p1.id}`, `update ${p2.id}`, `update ${p3.id}`, `delete ${p4.id}`].sort(),
    );
    expect(summary).toMatchObject({
      status: 'completed',
      created: 1,
      updated: 1,
      hidden: 1,
      deleted: 1,
      failed: 1,
      notRun: 0,
      requests: 5,
    });
    expect(summary.failedOperations).toEqual([
      {
        key: `update:${p2.id}`,
        label: p2.reference_id,
        code: 'price_invalid',
        message: 'price is not accepted',
      },
    ]);
    // Each row the failed product was planned from, in both sheets.
    expect(summary.failedRows).toEqual([
      { sheet: 'products.csv', row: 4, code: 'price_invalid', message: 'price is not accepted' },
      { sheet: 'options.csv', row: 3, code: 'price_invalid', message: 'price is not accepted' },
    ]);
    expect(run.refresh().counts).toMatchObject({
      created: 1,
      updated: 1,
      hidden: 1,
      deleted: 1,
      failed: 1,
      requests: 5,
    });
    expect(cliSummaryOf(productJob.summary, summary)).toEqual({
      created: 1,
      updated: 1,
      hidden: 1,
      deleted: 1,
      failed: 1,
      writeRequests: 5,
      failedRows: summary.failedRows,
    });
  });

  it('results.csv covers both sheets; failed rows go to failed.csv and failed-options.csv', async () => {
    const { run } = await planned();
    await runJob(run, productJob, { client, concurrency: 1 });
    expect(readCsv(run.file('results')).map((r) => [r['sheet'], r['row'], r['outcome'], r['key']])).toEqual([
      ['products.csv', '2', 'created', 'NEW-1'],
      ['products.csv', '3', 'updated', p1.reference_id],
      ['products.csv', '4', 'failed', p2.reference_id],
      // results.csv has no `hidden`: a hidden product's row is updated.
      ['products.csv', '5', 'updated', p3.reference_id],
      ['options.csv', '2', 'updated', p1.reference_id],
      ['options.csv', '3', 'failed', p2.reference_id],
    ]);
    expect(readCsv(run.file('failed')).map((r) => r['reference_id'])).toEqual([p2.reference_id]);
    expect(readCsv(path.join(run.dir, 'failed-options.csv')).map((r) => r['reference_id'])).toEqual([
      p2.reference_id,
    ]);
  });

  it('changes() is a pure mapping: asked twice, the same answer, and the summary is the same', async () => {
    const { run } = await planned();
    const file = readPlanFile(run, ProductPlanFileSchema);
    const session = productJob.session({
      run,
      file,
      client,
      options: { client },
      readSignal: {},
      saveBefore: () => Promise.resolve(),
      countRequest: () => {},
    });
    const outcomes = session.operations.map((op) => ({
      status: 'done' as const,
      op,
      key: op.key,
      result: { id: op.entry.productId ?? 'prod_new' },
      source: 'executed' as const,
      attempts: 1,
    }));
    const once = outcomes.flatMap((o) => session.changes(o));
    const twice = outcomes.flatMap((o) => session.changes(o));
    expect(twice).toEqual(once);
    expect(once.map((c) => c.outcome).sort()).toEqual(['created', 'deleted', 'hidden', 'updated', 'updated']);
    // Run it for real afterwards: counts are the tally's, not a side count of those calls.
    const summary = await runJob(run, productJob, { client, concurrency: 1 });
    expect(summary).toMatchObject({ created: 1, updated: 1, hidden: 1, deleted: 1, failed: 1 });
  });
});

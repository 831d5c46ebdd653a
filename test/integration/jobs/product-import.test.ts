import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { undiciRequestLike, type FetchLike } from '../../../src/api/transport.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { main } from '../../../src/cli/main.js';
import {
  applyProductRun,
  checkProductDrift,
  planProductImport,
  replanProductRun,
  type ProductPlanFile,
} from '../../../src/jobs/products/product-import.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { captureStream as capture } from '../../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SAMPLES = join(ROOT, 'samples');

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

interface Sent {
  method: string;
  url: string;
  body: unknown;
}

/** The sample store in a sandbox, and a client that also records the bodies it sends. */
async function setup() {
  sandbox = await startSandbox({ seed: join(SAMPLES, 'store.json') });
  const sent: Sent[] = [];
  const fetch: FetchLike = (url, init) => {
    if (init.method !== 'GET') {
      sent.push({ method: init.method, url, body: init.body ? (JSON.parse(init.body) as unknown) : null });
    }
    return undiciRequestLike(url, init);
  };
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token, fetch });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-products-'));
  return { s: sandbox, client, dir, runsRoot: join(dir, '.mbulk', 'runs'), sent };
}

function writes(s: RunningSandbox) {
  return s.requestLog().filter((e) => !['GET', 'HEAD'].includes(e.method) && !e.path.startsWith('/__'));
}

function readCsv(file: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

/** A plan without what legitimately differs between two reads of the same content. */
function comparable(file: ProductPlanFile) {
  const role = (sheet: string) => (sheet === file.sheets.products ? 'products' : 'options');
  return JSON.parse(
    JSON.stringify({ plan: file.plan, issues: file.issues }, (key, value: unknown) =>
      key === 'sheet' && typeof value === 'string' ? role(value) : value,
    ),
  ) as unknown;
}

describe('products import against the sandbox (samples/store.json)', () => {
  it('imports the sample as creates and updates; the second import plans all noop and writes nothing', async () => {
    const { s, client, runsRoot } = await setup();
    const input = {
      client,
      file: join(SAMPLES, 'catalog.csv'),
      optionsFile: join(SAMPLES, 'options.csv'),
      runsRoot,
      target: 'test',
    };
    const first = await planProductImport(input);
    const { summary } = first.file.plan;
    expect(summary.create).toBe(3);
    expect(summary.update).toBeGreaterThanOrEqual(3);
    expect(summary.invalid).toBe(0);
    expect(writes(s)).toEqual([]);
    const applied = await applyProductRun(first.run, { client });
    expect(applied).toMatchObject({ status: 'completed', created: 3, failed: 0 });
    expect(writes(s).filter((e) => e.method === 'POST')).toHaveLength(3);
    expect(writes(s).filter((e) => e.method === 'PATCH')).toHaveLength(summary.update);

    // The external image was re-hosted and remembered for this store.
    const memory = JSON.parse(
      readFileSync(join(runsRoot, '..', 'stores', first.store.id, 'images.json'), 'utf8'),
    ) as { images: Record<string, string> };
    expect(Object.keys(memory.images)).toEqual(['https://images.example.com/kopi-o-beans.png']);

    const results = readCsv(first.run.file('results'));
    expect(results.filter((r) => r['outcome'] === 'created').length).toBeGreaterThanOrEqual(3);
    expect(results.every((r) => ['created', 'updated', 'unchanged'].includes(r['outcome'] ?? ''))).toBe(true);

    s.clearRequestLog();
    const second = await planProductImport(input);
    expect(second.file.plan.summary.noop).toBe(second.file.plan.summary.total);
    const again = await applyProductRun(second.run, { client });
    expect(again.requests).toBe(0);
    expect(writes(s)).toEqual([]);
  });

  it('plans the same from the CSV pair and from the XLSX workbook', async () => {
    const { client, runsRoot } = await setup();
    const csv = await planProductImport({
      client,
      file: join(SAMPLES, 'catalog.csv'),
      optionsFile: join(SAMPLES, 'options.csv'),
      runsRoot,
      target: 'test',
    });
    const xlsx = await planProductImport({
      client,
      file: join(SAMPLES, 'catalog.xlsx'),
      runsRoot,
      target: 'test',
    });
    expect(xlsx.file.optionsInput?.sheet).toBe('options');
    expect(comparable(xlsx.file)).toEqual(comparable(csv.file));
    expect(csv.file.plan.summary.create).toBe(3);
  });

  it('changes the one variant a sheet lists and keeps the other two with their stock', async () => {
    const { s, client, dir, runsRoot, sent } = await setup();
    const before = s.store.getProduct('prod_00000003');
    expect(before.variants).toHaveLength(3);
    const file = join(dir, 'one-variant.csv');
    writeFileSync(file, 'reference_id,variant_sku,variant_price\nERP-0000003,NLB-SGL-STD,5.00\n');
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.summary).toMatchObject({ update: 1, total: 1 });
    await applyProductRun(planned.run, { client });

    expect(writes(s).map((e) => [e.method, e.path])).toEqual([['PATCH', '/api/v2/products/prod_00000003']]);
    const body = sent[0]?.body as { variants: { id?: string; price?: number }[] };
    expect(Object.keys(body)).toEqual(['variants']);
    expect(body.variants.map((v) => v.id)).toEqual(before.variants.map((v) => v.id));
    const after = s.store.getProduct('prod_00000003');
    expect(after.variants.map((v) => v.id)).toEqual(before.variants.map((v) => v.id));
    expect(after.variants[0]?.price).toBe(500);
    for (let i = 1; i < 3; i++) {
      expect(after.variants[i]?.price).toBe(before.variants[i]?.price);
      expect(after.variants[i]?.inventory?.quantity).toBe(before.variants[i]?.inventory?.quantity);
      expect(after.variants[i]?.inventory?.item_id).toBe(before.variants[i]?.inventory?.item_id);
    }
  });

  it('one changed price is exactly one PATCH carrying that field', async () => {
    const { s, client, dir, runsRoot, sent } = await setup();
    const file = join(dir, 'price.csv');
    // Every other column equals the live product: only the price differs.
    writeFileSync(file, 'reference_id,name,price,tags\nERP-0000012,Bucket Hat,29.90,unisex\n');
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.entries[0]?.changes).toEqual([
      { path: 'price', before: 3190, after: 2990, money: true },
    ]);
    await applyProductRun(planned.run, { client });
    expect(writes(s).map((e) => [e.method, e.path, e.status])).toEqual([
      ['PATCH', '/api/v2/products/prod_0000000c', 200],
    ]);
    expect(sent.map((x) => x.body)).toEqual([{ price: 2990 }]);
    expect(s.store.getProduct('prod_0000000c').price).toBe(2990);
  });

  it('applies the valid products, reports each invalid row with its cell, and exits 1 (CLI)', async () => {
    const { s, dir } = await setup();
    const file = join(dir, 'mixed.csv');
    writeFileSync(
      file,
      [
        'reference_id,name,price,mbulk_error',
        'NEW-1,Valid New Product,10.00,',
        'NEW-2,Bad Price,abc,',
        'NEW-3,,5.00,',
        'ERP-0000012,Bucket Hat,30.00,old error text',
        'NEW-4,Too Precise,1.999,',
      ].join('\n'),
    );
    const stdout = capture();
    const stderr = capture();
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const code = await main(['import', 'products', file, '--apply', '--yes', '--json'], {
      env,
      cwd: dir,
      stdout: stdout.stream,
      stderr: stderr.stream,
    });
    expect(code).toBe(1);
    const doc = JSON.parse(stdout.text()) as { runDir: string; created: number; updated: number };
    expect(doc).toMatchObject({ created: 1, updated: 1 });
    expect(stderr.text()).not.toMatch(/unknown_column/);
    expect(
      writes(s)
        .map((e) => e.method)
        .sort(),
    ).toEqual(['PATCH', 'POST']);

    const run = RunDirectory.load(doc.runDir);
    const results = readCsv(run.file('results'));
    const byRow = new Map(results.map((r) => [r['row'], r]));
    expect(byRow.get('2')).toMatchObject({ outcome: 'created' });
    expect(byRow.get('3')).toMatchObject({ outcome: 'invalid', column: 'C' });
    expect(byRow.get('4')).toMatchObject({ outcome: 'invalid', column: 'B', error_code: 'name_required' });
    expect(byRow.get('5')).toMatchObject({ outcome: 'updated', entity_id: 'prod_0000000c' });
    expect(byRow.get('6')).toMatchObject({ outcome: 'invalid', column: 'C' });
    const failed = readCsv(run.file('failed'));
    expect(failed.map((r) => r['reference_id'])).toEqual(['NEW-2', 'NEW-3', 'NEW-4']);
    expect(failed[0]?.['price']).toBe('abc');
    expect(failed.every((r) => (r['mbulk_error'] ?? '') !== '')).toBe(true);
  });

  it('refuses with exit 3 a sheet whose --missing delete would remove most of the catalog (CLI)', async () => {
    const { s, dir } = await setup();
    const stdout = capture();
    const stderr = capture();
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const code = await main(
      ['import', 'products', join(SAMPLES, 'catalog.csv'), '--missing', 'delete', '--apply', '--yes'],
      { env, cwd: dir, stdout: stdout.stream, stderr: stderr.stream },
    );
    expect(code).toBe(3);
    expect(stderr.text()).toMatch(/refused/);
    expect(writes(s)).toEqual([]);
  });

  it('dry run (CLI): exit 0, nothing written, --report writes the whole report; a sheet without a key column exits 2', async () => {
    const { s, dir } = await setup();
    const env = { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token };
    const run = async (argv: string[]) => {
      const stdout = capture();
      const stderr = capture();
      const code = await main(argv, { env, cwd: dir, stdout: stdout.stream, stderr: stderr.stream });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    };
    const md = await run(['import', 'products', join(SAMPLES, 'catalog.csv'), '--report', 'plan.md']);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/create 3 · update 3/);
    expect(md.stdout).toContain('price: 11.90 → 12.50');
    expect(readFileSync(join(dir, 'plan.md'), 'utf8')).toContain(
      'create ERP-1002 (row 8): variants[BAG-SGT-GLD]: added',
    );
    const json = await run(['import', 'products', join(SAMPLES, 'catalog.csv'), '--report', 'plan.json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as ProductPlanFile;
    expect(report.plan.summary.create).toBe(3);
    expect(writes(s)).toEqual([]);

    writeFileSync(join(dir, 'nokey.csv'), 'name,price\nSomething,1.00\n');
    const bad = await run(['import', 'products', 'nokey.csv']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/id, reference_id or sku/);
  });

  it('restores text an export neutralised with a leading apostrophe', async () => {
    const { client, dir, runsRoot } = await setup();
    const file = join(dir, 'neutralised.csv');
    writeFileSync(file, "reference_id,name,price,description\nNEW-F,'+Plus Tee,10.00,'=not a formula\n");
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.entries[0]?.body).toMatchObject({
      name: '+Plus Tee',
      description: '=not a formula',
    });
  });

  it('checkProductDrift finds each kind of drift: a planned field moved, a product deleted, a product to create now there', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = join(dir, 'drift-kinds.csv');
    writeFileSync(
      file,
      'reference_id,name,price\nERP-0000012,,29.90\nERP-0000005,,19.90\nNEW-0001,New Cap,9.90\n',
    );
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    expect(planned.file.plan.summary).toMatchObject({ update: 2, create: 1 });
    const idOf = (ref: string) => planned.file.plan.entries.find((e) => e.label === ref)?.productId ?? '';
    const [hat, other] = [idOf('ERP-0000012'), idOf('ERP-0000005')];
    expect(await checkProductDrift(planned.run, client)).toEqual([]);
    // Meanwhile, in the store: the planned price moves, a planned product is deleted, and the
    // product the plan creates appears.
    s.store.updateProduct(hat, { price: 4500 });
    s.store.deleteProduct(other);
    const made = s.store.createProduct({ reference_id: 'NEW-0001', name: 'New Cap', price: 990 });
    const drifted = await checkProductDrift(RunDirectory.load(planned.run.dir), client);
    expect(drifted).toMatchObject([
      {
        id: hat,
        change: 'changed',
        action: 'update',
        fields: [{ field: 'price', planned: '29.90', live: '45.00', atPlanning: '31.90' }],
      },
      { id: other, change: 'deleted', action: 'update', liveUpdatedAt: null },
      { id: made.id, productId: made.id, change: 'exists', action: 'create', liveUpdatedAt: made.updated_at },
    ]);
  });

  it('refuses (checkProductDrift) a saved plan whose product changed after planning', async () => {
    const { s, client, dir, runsRoot } = await setup();
    const file = join(dir, 'drift.csv');
    writeFileSync(file, 'reference_id,price\nERP-0000012,29.90\nERP-0000005,19.90\n');
    const planned = await planProductImport({ client, file, runsRoot, target: 'test' });
    const loaded = RunDirectory.load(planned.run.dir);
    expect(await checkProductDrift(loaded, client)).toEqual([]);
    // Someone edits one of the products in the store meanwhile.
    await client.products.update('prod_0000000c', { name: 'Bucket Hat (edited)' });
    const drifted = await checkProductDrift(loaded, client);
    expect(drifted).toMatchObject([
      { type: 'product', id: 'prod_0000000c', change: 'changed', action: 'update' },
    ]);
    expect(drifted[0]?.reason).toMatch(/changed in the store after planning/);
    expect(s.store.getProduct('prod_0000000c').price).toBe(3190);

    // --replan: the run's own input copy planned again against the store as it is now.
    const replanned = await replanProductRun(loaded, { client, target: 'test' });
    expect(replanned.run.id).not.toBe(loaded.id);
    expect(replanned.file.plan.summary).toMatchObject({ update: 2 });
    expect(await checkProductDrift(replanned.run, client)).toEqual([]);
    await applyProductRun(replanned.run, { client });
    expect(s.store.getProduct('prod_0000000c')).toMatchObject({ price: 2990, name: 'Bucket Hat (edited)' });
  });
});

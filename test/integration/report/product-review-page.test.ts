import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { formatMoney } from '../../../src/sheets/money.js';
import { attr, parseHtml, select, tableRows, text } from '../../helpers/review-dom.js';
import { runCli } from '../../helpers/run-cli.js';

const SAMPLES = resolve(import.meta.dirname, '../../../samples');

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  sandbox = await startSandbox({ seed: join(SAMPLES, 'store.json') });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-review-'));
  env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
});
afterEach(async () => {
  await sandbox.close();
});

interface PlanJson {
  store: { currency: string };
  plan: { entries: { action: string; productId: string | null; label: string }[] };
}

describe('report.html of the sample catalog plan (samples/catalog.csv against samples/store.json)', () => {
  it('has the counts, a card per product and the before → after cell of a changed price', async () => {
    const run = await runCli(
      [
        'import',
        'products',
        join(SAMPLES, 'catalog.csv'),
        '--options',
        join(SAMPLES, 'options.csv'),
        '--json',
      ],
      env,
      dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const result = run.json<{ runDir: string; reportHtml: string; counts: Record<string, number> }>();
    expect(result.reportHtml).toBe(join(result.runDir, 'report.html'));
    expect(run.stderr).toContain(`Review page: ${result.reportHtml}`);
    const plan = JSON.parse(readFileSync(join(result.runDir, 'plan.json'), 'utf8')) as PlanJson;
    const doc = parseHtml(readFileSync(result.reportHtml, 'utf8'));

    // Top: the counts as planned (one "invalid": the sheet rows to fix).
    const counts = Object.fromEntries(
      select(doc, 'li').flatMap((li) => {
        const label = attr(li, 'data-count');
        return label === undefined ? [] : [[label, Number(text(select(li, 'span', 'count')[0]!))]];
      }),
    );
    for (const action of ['create', 'update', 'invalid rows'])
      expect(counts[action], action).toBe(result.counts[action]);
    expect(Object.keys(counts)).not.toContain('invalid');
    expect(Object.keys(counts)).not.toContain('created');
    expect(counts['unchanged']).toBe(result.counts['noop']);
    expect(result.counts['create']).toBeGreaterThan(0);
    expect(text(select(doc, 'code').find((c) => attr(c, 'id') === 'apply-command')!)).toMatch(
      /^mbulk apply \d{8}-\d{6}-products-/,
    );

    // One card per entity of the plan, in order, with its action.
    const cards = select(doc, 'article', 'card');
    expect(cards.map((c) => attr(c, 'data-action'))).toEqual(
      plan.plan.entries.map((e) => (e.action === 'noop' ? 'unchanged' : e.action)),
    );

    // The toast's price changes: the live price (read from the sandbox) → the sheet's price.
    const sheet = Papa.parse<Record<string, string>>(readFileSync(join(SAMPLES, 'catalog.csv'), 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    const toastRow = sheet.find((r) => r['sku'] === 'KBT')!;
    const toast = plan.plan.entries.find((e) => e.label === 'KBT' && e.action === 'update')!;
    const live = sandbox.store.getProduct(toast.productId!);
    const card = cards.find((c) => text(select(c, 'code', 'key')[0]!) === 'KBT')!;
    expect(text(select(card, 'h3', 'name')[0]!)).toBe(live.name);
    const priceRow = tableRows(card).find((cells) => cells[0] === 'price');
    expect(priceRow).toEqual(['price', `${formatMoney(live.price, 2)} MYR`, `${toastRow['price']} MYR`]);
    expect(priceRow?.[1]).not.toBe(priceRow?.[2]);
    const priceTr = select(card, 'tr').find((tr) => text(select(tr, 'td')[0] ?? tr) === 'price')!;
    expect(select(priceTr, 'td').map((td) => attr(td, 'class'))).toEqual([
      undefined,
      'c-before amount',
      'c-after amount',
    ]);

    // Thumbnails: lazy, with alt text, from the product's image URLs.
    const images = select(card, 'img');
    expect(images.length).toBe(live.images.length);
    for (const img of images) {
      expect(attr(img, 'loading')).toBe('lazy');
      expect(attr(img, 'alt')).toContain(live.name);
    }
    expect(images.map((i) => attr(i, 'src'))).toEqual(live.images);

    // Self-contained: no external script, style or font; the only script is the page's own.
    const scripts = select(doc, 'script');
    expect(scripts.map((s) => attr(s, 'src'))).toEqual([undefined, undefined]);
    expect(scripts.map((s) => attr(s, 'type'))).toEqual(['application/json', undefined]);
    expect(select(doc, 'link')).toEqual([]);
    const data = JSON.parse(text(scripts[0]!)) as { cards: unknown[] };
    expect(data.cards).toHaveLength(plan.plan.entries.length);
  });
});

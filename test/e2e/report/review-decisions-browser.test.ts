import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StockChange, StockPlan } from '../../../src/plan/stock-plan.js';
import { renderReviewHtml } from '../../../src/report/render-review-html.js';
import { stockReview } from '../../../src/report/stock-review.js';
import type { PlanEntry, ProductPlan } from '../../../src/plan/product-plan.js';
import { productReview } from '../../../src/report/product-review.js';
import type { MessagePlan } from '../../../src/plan/message-plan.js';
import { messageReview } from '../../../src/report/message-review.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { launchChromium } from '../../helpers/chromium.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * The review page's decisions, in headless Chromium (issue 25): a plan `mbulk apply` would refuse
 * says so first, with the flag, and marks the refused card; a 100,000-change stock plan is one
 * table with totals, sort and filters (a 2,000-product run too, with outcomes); a rollback shows variant prices in currency units; an
 * applied run shows each product's (and customer's) outcome. Screenshots of each page are kept in
 * `.mbulk/screenshots/` (gitignored) to look at.
 */

// Browser globals used in page.evaluate callbacks (the project's TypeScript has no DOM lib).
interface PageElement {
  readonly textContent: string | null;
  getBoundingClientRect(): { top: number };
}
declare const document: {
  getElementById(id: string): PageElement | null;
  querySelectorAll(selector: string): { readonly length: number };
};

const SAMPLES = resolve(import.meta.dirname, '../../../samples');
const SHOTS = resolve(import.meta.dirname, '../../../.mbulk/screenshots');

let sandbox: RunningSandbox;
let browser: Browser;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  sandbox = await startSandbox({ seed: join(SAMPLES, 'store.json') });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-review-decisions-'));
  env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

async function open(file: string, shot: string): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForSelector('html[data-ready="true"]', { timeout: 20_000 });
  await page.screenshot({ type: 'png', path: join(SHOTS, `${shot}.png`) });
  return page;
}

/** The vertical position of an element, to check what comes first. */
function top(page: Page, selector: string): Promise<number> {
  return page.$eval(selector, (e) => (e as unknown as PageElement).getBoundingClientRect().top);
}

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (list) => list.map((e) => (e.textContent ?? '').trim()));

describe('review pages put decisions first (Chromium)', () => {
  it('a ×100 price jump: the refusal and --allow-price-jumps above the counts, the card marked, no bare apply command', async () => {
    const csv = join(dir, 'jump.csv');
    writeFileSync(csv, 'reference_id,price\nERP-0000001,1190.00\n');
    const run = await runCli(['import', 'products', csv, '--json'], env, dir);
    expect(run.code, run.stderr).toBe(0);
    const { reportHtml, runId } = run.json<{ reportHtml: string; runId: string }>();
    const page = await open(reportHtml, 'price-jump-plan');

    expect(await page.$eval('#headline', (e) => e.textContent)).toMatch(
      /^Plan · nothing has been written yet · target /,
    );
    const refusal = await page.$eval('#refusals', (e) => e.textContent ?? '');
    expect(refusal).toContain('1 suspicious price change');
    expect(refusal).toContain('--allow-price-jumps');
    expect(await top(page, '#refusals')).toBeLessThan(await top(page, '#counts'));
    expect(await page.$eval('#apply-command', (e) => e.textContent)).toBe(
      `mbulk apply ${runId} --allow-price-jumps`,
    );
    expect(await page.$eval('main', (e) => e.textContent ?? '')).not.toMatch(/To apply this plan:/);
    const card = await page.$eval('#cards article.card.refused', (e) => e.textContent ?? '');
    expect(card).toContain('Gula Melaka Latte');
    expect(card).toContain('11.90 → 1190.00 (×100)');
    // The metadata is folded below the decisions.
    expect(await page.$eval('#meta', (e) => e.hasAttribute('open'))).toBe(false);
    await page.close();
  });

  it('a 100,000-change stock plan: totals, sort by delta, and "goes to zero"', async () => {
    const changes: StockChange[] = [];
    let zero = 0;
    for (let i = 0; i < 100_000; i++) {
      const before = (i * 7) % 50;
      const after = i % 9 === 0 ? 0 : (i * 13) % 60;
      if (after === 0 && before > 0) zero++;
      changes.push({
        itemId: `inv_${i}`,
        sku: `SKU-${String(i).padStart(6, '0')}`,
        name: `Item ${i}`,
        productId: `prod_${i}`,
        variantId: null,
        sheet: 'stock.csv',
        rowNumber: i + 2,
        before,
        after,
        mode: 'quantity',
        value: after,
        expectedUpdatedAt: '2026-01-01T00:00:00Z',
      });
    }
    const plan: StockPlan = {
      kind: 'stock',
      options: { preserveSales: false },
      rows: changes.length,
      changes,
      unchanged: 0,
      skipped: [],
      issues: [],
    } as unknown as StockPlan;
    const body = stockReview({ plan }, { applyCommand: 'mbulk apply R' });
    const file = join(dir, 'stock-100k.html');
    writeFileSync(
      file,
      renderReviewHtml({
        title: 'Import stock',
        facts: [
          ['Status', 'planned'],
          ['Target', 'sandbox'],
        ],
        counts: [['change', changes.length]],
        ...body,
      }),
    );
    const page = await open(file, 'stock-100k-plan');
    const totals = Object.fromEntries(
      (await texts(page, '#totals li')).map((t) => {
        const [n, ...label] = t.split(' ');
        return [label.join(' '), Number(n!.replace(/,/g, ''))];
      }),
    );
    const up = changes.filter((c) => c.after > c.before).length;
    expect(totals).toMatchObject({ 'items up': up, 'items to zero': zero });
    expect(totals['units added']).toBe(changes.reduce((n, c) => n + Math.max(0, c.after - c.before), 0));
    expect(await page.$$eval('#trows tr', (r) => r.length)).toBe(100);

    // Sort by delta (column 4), ascending: the biggest decrease first.
    await page.click('button[data-sort="4"]');
    const minDelta = Math.min(...changes.map((c) => c.after - c.before));
    expect(Number((await texts(page, '#trows tr:first-child td'))[4])).toBe(minDelta);
    await page.click('button[data-sort="4"]');
    const maxDelta = Math.max(...changes.map((c) => c.after - c.before));
    expect(Number((await texts(page, '#trows tr:first-child td'))[4])).toBe(maxDelta);

    await page.click('button[data-tfilter="zero"]');
    expect(await page.$eval('#tshown', (e) => e.textContent)).toBe(
      `Rows 1–100 of ${zero.toLocaleString('en-US')} (100,000 in all)`,
    );
    const shown = await page.$$eval('#trows tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(shown.every((r) => r[3] === '0' && Number(r[2]) > 0)).toBe(true);
    await page.click('#tnext');
    expect(await page.$eval('#tshown', (e) => e.textContent)).toBe(
      `Rows 101–200 of ${zero.toLocaleString('en-US')} (100,000 in all)`,
    );
    await page.type('#tsearch', 'SKU-000009');
    await page.waitForFunction(() => document.getElementById('tshown')?.textContent?.startsWith('Rows 1–'));
    // SKU-000009 and SKU-0000090…99 that go to zero: i % 9 === 0 and before > 0.
    const expected = changes.filter(
      (c) => c.sku!.includes('SKU-000009') && c.after === 0 && c.before > 0,
    ).length;
    expect(await page.$$eval('#trows tr', (r) => r.length)).toBe(expected);
    await page.close();
  }, 60_000);

  it('a 2,000-product applied run: one table of field changes with totals, outcomes, the failed filter and search', async () => {
    const entries = Array.from({ length: 2_000 }, (_, i) => ({
      action: 'update',
      key: `update:prod_${i}`,
      productId: `prod_${i}`,
      match: { by: 'reference_id', value: `REF-${String(i).padStart(5, '0')}` },
      label: `REF-${i}`,
      expectedUpdatedAt: '2026-01-01T00:00:00Z',
      changes: [
        { path: 'price', before: 1000 + i, after: 1100 + i, money: true },
        ...(i % 2 === 0 ? [{ path: 'name', before: `Old ${i}`, after: `Product ${i}` }] : []),
      ],
      rows: [{ sheet: 'catalog.csv', rowNumber: i + 2 }],
      issues: [],
      body: { name: `Product ${i}` },
    })) as unknown as PlanEntry[];
    const invalid = {
      action: 'invalid',
      key: 'invalid:row2003',
      productId: null,
      match: null,
      label: 'row 2003',
      expectedUpdatedAt: null,
      changes: [],
      rows: [{ sheet: 'catalog.csv', rowNumber: 2003 }],
      issues: [],
    } as unknown as PlanEntry;
    const plan = { decimals: 2, entries: [...entries, invalid] } as unknown as ProductPlan;
    const notWritten: Record<string, string> = {};
    for (let i = 0; i < 2_000; i += 250)
      notWritten[`update:prod_${i}`] = 'failed: conflict: the product is locked';
    const body = productReview(
      { store: { currency: 'MYR' }, plan, issues: [], before: {} },
      { failedWritten: true, applied: { notWritten } },
    );
    const file = join(dir, 'products-2000.html');
    writeFileSync(
      file,
      renderReviewHtml({ title: 'Import products', facts: [['Status', 'applied']], counts: [], ...body }),
    );
    const page = await open(file, 'products-2000-applied');
    expect(await texts(page, '#totals li')).toEqual(['2,000 update', '3,000 field changes']);
    expect(await texts(page, '#rows thead th')).toEqual([
      'Name',
      'Key',
      'Action',
      'Field',
      'Before',
      'After',
      'Outcome',
    ]);
    expect(await texts(page, '#trows tr:first-child td')).toEqual([
      'Product 0',
      'REF-00000',
      'update',
      'price',
      '10.00 MYR',
      '11.00 MYR',
      'failed: conflict: the product is locked',
    ]);
    // Stock's quantity filters need numbers: a table of field changes has none of them.
    expect(await page.$('button[data-tfilter="zero"]')).toBeNull();
    await page.click('button[data-tfilter="failed"]');
    // 8 failed products, each with a price and a name change.
    expect(await page.$eval('#tshown', (e) => e.textContent)).toBe('Rows 1–16 of 16 (3,000 in all)');
    await page.click('button[data-tfilter="all"]');
    await page.type('#tsearch', 'product 1999');
    await page.waitForFunction(
      () => document.getElementById('tshown')?.textContent === 'Rows 1–1 of 1 (3,000 in all)',
    );
    // The invalid product stays a card below the table; the 2,000 updates are not cards.
    expect(await page.$$eval('#cards article.card', (c) => c.length)).toBe(1);
    await page.close();
  }, 60_000);

  it('an interrupted messages run: each recipient done, failed with the reason, or pending, and the resume command', async () => {
    const sends = [1, 2, 3].map((n) => ({
      sheet: 'to.csv',
      rowNumber: n + 1,
      to: `+6012000000${n}`,
      parameters: { name: `P${n}` },
      key: `order_ready:${n}`,
    }));
    const plan: MessagePlan = {
      kind: 'messages',
      template: { name: 'order_ready', status: 'APPROVED', language: 'en', parameters: ['name'] },
      sends,
      duplicates: [],
      issues: [],
    };
    const body = messageReview(
      { plan, template: { body: 'Hi {{name}}, your order is ready' } },
      {
        failedWritten: true,
        resumeCommand: 'mbulk runs resume R',
        applied: {
          notWritten: { 'order_ready:2': 'failed: recipient_blocked: opted out', 'order_ready:3': 'pending' },
        },
      },
    );
    const file = join(dir, 'messages-interrupted.html');
    writeFileSync(
      file,
      renderReviewHtml({
        title: 'Send template messages: order_ready',
        facts: [['Status', 'interrupted']],
        counts: [],
        ...body,
      }),
    );
    const page = await open(file, 'messages-interrupted-run');
    expect(await texts(page, '#cards article.card .badge.outcome')).toEqual([
      'done',
      'failed: recipient_blocked: opted out',
      'pending',
    ]);
    expect(await page.$eval('main', (e) => e.textContent ?? '')).toContain('mbulk runs resume R');
    await page.close();
  }, 60_000);

  it("an applied customers run shows each customer's outcome", async () => {
    const csv = join(dir, 'customers.csv');
    writeFileSync(csv, 'name,phone\nOutcome One,012-111 2222\nOutcome Two,012-111 3333\n');
    const applied = await runCli(['import', 'customers', csv, '--apply', '--yes', '--json'], env, dir);
    expect(applied.code, applied.stderr).toBe(0);
    const { reportHtml } = applied.json<{ reportHtml: string }>();
    const page = await open(reportHtml, 'applied-customers-run');
    expect(await page.$eval('#headline', (e) => e.textContent)).toMatch(/^Applied run · /);
    const cards = await page.$$eval('#cards article.card', (list) =>
      list.map((c) => [c.querySelector('h3')?.textContent, c.querySelector('.badge.outcome')?.textContent]),
    );
    expect(cards).toEqual([
      ['Outcome One', 'done'],
      ['Outcome Two', 'done'],
    ]);
    await page.close();
  }, 60_000);

  it("an applied run shows each product's outcome; its rollback shows variant prices in currency and the command to write it", async () => {
    const applied = await runCli(
      [
        'import',
        'products',
        join(SAMPLES, 'catalog.csv'),
        '--options',
        join(SAMPLES, 'options.csv'),
        '--apply',
        '--yes',
        '--allow-price-jumps',
        '--json',
      ],
      env,
      dir,
    );
    expect(applied.code, applied.stderr).toBe(0);
    const { reportHtml, runId } = applied.json<{ reportHtml: string; runId: string }>();
    const page = await open(reportHtml, 'applied-products-run');
    expect(await page.$eval('#headline', (e) => e.textContent)).toMatch(/^Applied run · /);
    const outcomes = await texts(page, '#cards article.card .badge.outcome');
    expect(outcomes.length).toBeGreaterThan(0);
    expect(new Set(outcomes)).toEqual(new Set(['done']));
    const counts = await texts(page, '#counts li .label');
    expect(counts).toEqual(['created', 'updated', 'hidden', 'deleted', 'failed', 'pending']);
    expect(await page.$('#apply-command')).toBeNull();
    await page.close();

    const rollback = await runCli(['runs', 'rollback', runId, '--json'], env, dir);
    expect(rollback.code, rollback.stderr).toBe(0);
    const { runDir } = rollback.json<{ runDir: string }>();
    const rb = await open(join(runDir, 'report.html'), 'rollback-plan');
    expect(await rb.$eval('#headline', (e) => e.textContent)).toMatch(/^Rollback plan · /);
    expect(await rb.$eval('#apply-command', (e) => e.textContent)).toBe(
      `mbulk runs rollback ${runId} --apply`,
    );
    const latte = await rb.$$eval('#cards article.card', (cards) =>
      cards
        .filter((c) => c.querySelector('h3')?.textContent === 'Gula Melaka Latte')
        .flatMap((c) =>
          [...c.querySelectorAll('tbody tr')].map((tr) =>
            [...tr.querySelectorAll('td')].map((td) => td.textContent),
          ),
        ),
    );
    // The run set Hot / Regular to 12.50 (the store had 11.90): restored in currency units, never 1250.
    expect(latte).toContainEqual([
      'variants[DRK-GML-HOT-REG]',
      'Hot / Regular · 12.50 MYR · stock 60',
      'Hot / Regular · 11.90 MYR · stock 60',
    ]);
    expect(await rb.$eval('main', (e) => e.textContent ?? '')).not.toMatch(/\b1250\b/);
    const kept = await texts(rb, '#cards article.a-kept li');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept[0]).toContain(`mbulk runs rollback ${runId} --delete-created --apply`);
    expect(await texts(rb, '#cards article.a-not-reversible')).toEqual([]);
    await rb.close();
  }, 60_000);
});

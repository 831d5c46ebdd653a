/**
 * The review page at scale (issues 16 and 25): a 100,000-change stock plan rendered to
 * report.html (one table: totals, sort, filters, paging), then loaded in headless Chromium (the
 * system `chromium`, through puppeteer-core) from its file:// URL.
 *
 *   npx tsx bench/report-html.bench.ts                    # 100,000 changes, 3 loads
 *   npx tsx bench/report-html.bench.ts --changes 200000 --repeat 5
 *
 * Figures: render time in Node, file size, and per load in Chromium: first contentful paint, DOM
 * content loaded, the page script ready (embedded JSON parsed, filters wired), a search over every
 * row (including the 120 ms typing debounce), the "goes to zero" filter and a sort by delta.
 * Targets: file < 25 MB, first paint < 1 s.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StockChange, StockPlan } from '../src/plan/stock-plan.js';
import { renderReviewHtml } from '../src/report/render-review-html.js';
import { stockReview } from '../src/report/stock-review.js';
import { launchChromium } from '../test/helpers/chromium.js';

// Browser globals used in page.evaluate callbacks (the project's TypeScript has no DOM lib).
interface PageNode {
  textContent: string | null;
  value: string;
  dispatchEvent(event: unknown): boolean;
  getAttribute(name: string): string | null;
  click(): void;
}
declare const document: {
  readonly documentElement: PageNode;
  getElementById(id: string): PageNode | null;
  querySelector(selector: string): PageNode | null;
};
declare const performance: {
  now(): number;
  getEntriesByType(type: string): { name: string; startTime: number }[];
  getEntriesByType(type: 'navigation'): { domContentLoadedEventEnd: number }[];
  getEntriesByName(name: string): { startTime: number }[];
};
declare class MutationObserver {
  constructor(callback: () => void);
  observe(target: PageNode, options: Record<string, boolean | string[]>): void;
  disconnect(): void;
}
declare class Event {
  constructor(type: string);
}

const MiB = 2 ** 20;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const changes = arg('changes', 100_000);
const repeat = arg('repeat', 3);

function stockPlan(n: number): StockPlan {
  const list: StockChange[] = [];
  for (let i = 0; i < n; i++) {
    const before = (i * 7) % 50;
    list.push({
      itemId: `inv_${String(i).padStart(8, '0')}`,
      sku: `SKU-${String(i).padStart(6, '0')}-${['S', 'M', 'L', 'XL'][i % 4]}`,
      name: `Product ${Math.floor(i / 4)} / ${['Small', 'Medium', 'Large', 'Extra large'][i % 4]}`,
      productId: `prod_${Math.floor(i / 4)}`,
      variantId: `var_${i}`,
      sheet: 'stock.csv',
      rowNumber: i + 2,
      before,
      after: Math.max(0, before + (i % 2 ? 3 : -1 - (i % 3))) + (before === 0 ? 1 : 0),
      mode: 'quantity',
      value: 0,
      expectedUpdatedAt: '2026-11-01T00:00:00Z',
    });
  }
  return {
    kind: 'stock',
    options: { preserveSales: false },
    rows: n * 4,
    changes: list,
    unchanged: n * 3,
    skipped: [],
    issues: [],
  };
}

const ms = (x: number | null) => (x === null || Number.isNaN(x) ? 'n/a' : `${x.toFixed(0)} ms`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const plan = stockPlan(changes);
  const t0 = performance.now();
  const html = renderReviewHtml({
    title: 'Import stock',
    runId: '20261123-120000-stock-bench',
    facts: [['Target', 'sandbox (bench)']],
    counts: [
      ['rows', plan.rows],
      ['change', changes],
      ['unchanged', plan.unchanged],
    ],
    ...stockReview({ plan }, { applyCommand: 'mbulk apply 20261123-120000-stock-bench' }),
  });
  const renderMs = performance.now() - t0;
  const dir = join(tmpdir(), 'mbulk-bench-report-html');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'report.html');
  writeFileSync(file, html);
  const size = statSync(file).size;
  console.log(`changes: ${changes.toLocaleString('en')} · load average ${loadavg()[0]?.toFixed(1)}`);
  console.log(`render (Node, stockReview + renderReviewHtml): ${renderMs.toFixed(0)} ms`);
  console.log(`file size: ${(size / MiB).toFixed(2)} MiB (target < 25 MB: ${size < 25e6 ? 'ok' : 'MISSED'})`);

  const browser = await launchChromium();
  try {
    const fcp: number[] = [];
    const dcl: number[] = [];
    const ready: number[] = [];
    const search: number[] = [];
    const zero: number[] = [];
    const sort: number[] = [];
    for (let r = 0; r < repeat; r++) {
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 120_000 });
      await page.waitForSelector('html[data-ready="true"]', { timeout: 120_000 });
      const t = await page.evaluate(() => {
        const paint = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
        const nav = performance.getEntriesByType('navigation')[0];
        return {
          fcp: paint?.startTime ?? NaN,
          dcl: nav?.domContentLoadedEventEnd ?? NaN,
          // The page script marks `review-ready` once the JSON is parsed and the filters are wired.
          ready: performance.getEntriesByName('review-ready')[0]?.startTime ?? NaN,
        };
      });
      const sku = `SKU-${String(changes - 1).padStart(6, '0')}`;
      const searchMs = await page.evaluate(
        (query) =>
          new Promise<number>((resolve) => {
            const box = document.getElementById('tsearch');
            const shown = document.getElementById('tshown');
            if (!box || !shown) return resolve(NaN);
            const start = performance.now();
            const watch = new MutationObserver(() => {
              if (shown.textContent?.startsWith('Rows 1–1 of 1 ')) {
                watch.disconnect();
                resolve(performance.now() - start);
              }
            });
            watch.observe(shown, { childList: true, characterData: true, subtree: true });
            box.value = query;
            box.dispatchEvent(new Event('input'));
          }),
        sku.toLowerCase(),
      );
      // A click handler runs synchronously: the time of the click is the time of the filter / sort.
      const clickMs = (selector: string) =>
        page.evaluate((sel) => {
          const start = performance.now();
          document.querySelector(sel)?.click();
          return performance.now() - start;
        }, selector);
      await page.evaluate(() => document.querySelector('button[data-tfilter="all"]')?.click());
      const zeroMs = await clickMs('button[data-tfilter="zero"]');
      const sortMs = await clickMs('button[data-sort="4"]');
      zero.push(zeroMs);
      sort.push(sortMs);
      fcp.push(t.fcp);
      dcl.push(t.dcl);
      ready.push(t.ready);
      search.push(searchMs);
      console.log(
        `load ${r + 1}: first contentful paint ${ms(t.fcp)} · DOMContentLoaded ${ms(t.dcl)} · script ready ${ms(t.ready)} · search one SKU among all ${ms(searchMs)} · "goes to zero" ${ms(zeroMs)} · sort by delta ${ms(sortMs)}`,
      );
      await page.close();
    }
    const m = median(fcp);
    console.log(
      `median: first contentful paint ${ms(m)} (target < 1000 ms: ${m < 1000 ? 'ok' : 'MISSED'}) · DOMContentLoaded ${ms(median(dcl))} · script ready ${ms(median(ready))} · search ${ms(median(search))} · "goes to zero" ${ms(median(zero))} · sort ${ms(median(sort))}`,
    );
  } finally {
    await browser.close();
  }
}

await main();

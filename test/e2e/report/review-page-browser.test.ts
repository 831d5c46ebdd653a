import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { launchChromium } from '../../helpers/chromium.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * The review page in a real browser (headless Chromium, Debian's `chromium` package): it renders
 * (the screenshot is not blank), its own script runs (filters, search, progressive cards), and
 * values holding HTML and script tags are text: no other script runs.
 */

// Browser globals used in page.evaluate callbacks (the project's TypeScript has no DOM lib).
interface PageElement {
  readonly textContent: string | null;
  readonly type: string;
  getAttribute(name: string): string | null;
  scrollIntoView(): void;
  click(): void;
}
declare const window: { __pwned?: number; __violations: string[] };
declare const document: {
  readonly scripts: Iterable<PageElement>;
  readonly documentElement: PageElement;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): { readonly length: number };
  getElementById(id: string): PageElement | null;
  addEventListener(
    type: string,
    listener: (e: { violatedDirective: string; blockedURI: string }) => void,
  ): void;
  createElement(tag: 'canvas'): {
    width: number;
    height: number;
    getContext(kind: '2d'): {
      drawImage(image: unknown, x: number, y: number): void;
      getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
    } | null;
  };
};
declare class Image {
  src: string;
  readonly width: number;
  readonly height: number;
  decode(): Promise<void>;
}

const SAMPLES = resolve(import.meta.dirname, '../../../samples');
const HOSTILE_NAME = '<script>window.__pwned = 1; alert(1)</script>Hostile <b>Hat</b>';
const HOSTILE_DESCRIPTION =
  '<img src=x onerror="window.__pwned = 2"></script><script>window.__pwned = 3</script><iframe src="javascript:alert(4)"></iframe>';

let sandbox: RunningSandbox;
let browser: Browser;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  browser = await launchChromium();
  sandbox = await startSandbox({ seed: join(SAMPLES, 'store.json') });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-review-browser-'));
  env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

interface Loaded {
  page: Page;
  dialogs: string[];
}

/** Opens a page from its file:// URL, recording dialogs (alert) and CSP violations. */
async function open(file: string): Promise<Loaded> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.evaluateOnNewDocument(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForSelector('html[data-ready="true"]', { timeout: 10_000 });
  return { page, dialogs };
}

/** Share of pixels that differ from the most common colour, and how many colours the PNG has. */
async function inkOf(png: Uint8Array): Promise<{ ink: number; colours: number }> {
  const page = await browser.newPage();
  try {
    const dataUrl = `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
    return await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, img.width, img.height);
      const counts = new Map<number, number>();
      for (let i = 0; i < data.length; i += 4) {
        const key = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const top = Math.max(...counts.values());
      const pixels = data.length / 4;
      return { ink: (pixels - top) / pixels, colours: counts.size };
    }, dataUrl);
  } finally {
    await page.close();
  }
}

describe('report.html in headless Chromium', () => {
  it('renders the sample catalog plan (not blank), with working filters and search', async () => {
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
    const { reportHtml, summary } = run.json<{ reportHtml: string; summary: Record<string, number> }>();
    const { page, dialogs } = await open(reportHtml);

    const png = await page.screenshot({ type: 'png', path: join(dir, 'catalog-plan.png') });
    const { ink, colours } = await inkOf(png);
    expect(ink).toBeGreaterThan(0.05);
    expect(colours).toBeGreaterThan(20);

    const count = () => page.$$eval('#cards article.card', (cards) => cards.length);
    expect(await count()).toBe(summary['total']);
    await page.click('button[data-filter="create"]');
    expect(await count()).toBe(summary['create']);
    await page.click('button[data-filter="all"]');
    await page.type('#search', 'bucket hat');
    await page.waitForFunction(() => document.querySelectorAll('#cards article.card').length === 1);
    expect(await page.$eval('#cards article.card h3', (h) => h.textContent)).toBe('Bucket Hat');
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('shows a name and a description holding HTML and script tags as text; no script but its own runs', async () => {
    const csv = join(dir, 'hostile.csv');
    const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;
    writeFileSync(
      csv,
      `reference_id,name,price,description\nHX-1,${cell(HOSTILE_NAME)},10.00,${cell(HOSTILE_DESCRIPTION)}\n`,
    );
    const run = await runCli(['import', 'products', csv, '--json'], env, dir);
    expect(run.code, run.stderr).toBe(0);
    const { reportHtml } = run.json<{ reportHtml: string }>();
    expect(readFileSync(reportHtml, 'utf8')).not.toContain('<script>window.__pwned');
    const { page, dialogs } = await open(reportHtml);

    const shown = await page.$eval('#cards article.card', (card) => ({
      name: card.querySelector('h3')?.textContent,
      cells: [...card.querySelectorAll('td')].map((td) => td.textContent),
    }));
    expect(shown.name).toBe(HOSTILE_NAME);
    expect(shown.cells).toContain(HOSTILE_DESCRIPTION);
    // The search re-renders the card from the embedded JSON: still text.
    await page.type('#search', 'hostile');
    await page.waitForFunction(() =>
      document.querySelector('#shown')?.textContent?.startsWith('Showing 1 of 1'),
    );
    expect(await page.$eval('#cards article.card h3', (h) => h.textContent)).toBe(HOSTILE_NAME);

    const state = await page.evaluate(() => {
      return {
        pwned: window.__pwned,
        violations: window.__violations,
        scripts: [...document.scripts].map((s) => s.type || 'classic'),
        injected: document.querySelectorAll('main b, main iframe, main img[src="x"]').length,
        ready: document.documentElement.getAttribute('data-ready'),
      };
    });
    expect(state).toEqual({
      pwned: undefined,
      violations: [],
      scripts: ['application/json', 'classic'],
      injected: 0,
      ready: 'true',
    });
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('renders a long plan progressively: the first cards at once, more as the reader scrolls', async () => {
    const { renderReviewHtml } = await import('../../../src/report/render-review-html.js');
    const cards = Array.from({ length: 1000 }, (_, n) => ({
      action: 'update',
      name: `Item ${n}`,
      key: `SKU-${n}`,
      rows: [{ cells: [`SKU-${n}`, '1', '2', '+1'] }],
    }));
    const file = join(dir, 'long.html');
    writeFileSync(
      file,
      renderReviewHtml({
        title: 'Import stock',
        facts: [],
        counts: [['change', 1000]],
        columns: [{ label: 'SKU' }, { label: 'Before' }, { label: 'After' }, { label: 'Delta' }],
        cards,
        invalid: [],
      }),
    );
    const { page } = await open(file);
    const count = () => page.$$eval('#cards article.card', (c) => c.length);
    const first = await count();
    expect(first).toBeLessThan(1000);
    await page.evaluate(() => document.getElementById('more')?.scrollIntoView());
    await page.waitForFunction((n) => document.querySelectorAll('#cards article.card').length > n, {}, first);
    // "Show more" (clicked in the page: scrolling may render the rest and hide the button meanwhile).
    for (let i = 0; i < 20 && (await count()) < 1000; i++)
      await page.evaluate(() => document.getElementById('more')?.click());
    expect(await count()).toBe(1000);
    expect(await page.$eval('#cards article.card:last-child h3', (h) => h.textContent)).toBe('Item 999');
    await page.close();
  });
});

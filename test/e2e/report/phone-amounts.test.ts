import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { launchChromium } from '../../helpers/chromium.js';
import { runCli } from '../../helpers/run-cli.js';

/**
 * The review page on a phone (390 px wide, headless Chromium): every amount (`11.90 MYR`) stays on
 * one line, in the cards the page is served with and in those its script draws as you scroll.
 * Measured in the DOM: the lines a cell's text takes (distinct tops of its text's client rects).
 */

// Browser globals used in page.evaluate callbacks (the project's TypeScript has no DOM lib).
interface TextNode {
  readonly textContent: string | null;
}
interface Cell {
  readonly textContent: string | null;
  readonly firstChild: TextNode | null;
}
declare const document: {
  querySelectorAll(selector: string): Iterable<Cell> & { readonly length: number };
  createRange(): {
    selectNodeContents(node: TextNode): void;
    getClientRects(): Iterable<{ top: number; width: number }>;
  };
  readonly documentElement: { readonly scrollHeight: number; readonly scrollWidth: number };
};
declare const window: { scrollTo(x: number, y: number): void };

const SAMPLES = resolve(import.meta.dirname, '../../../samples');
let sandbox: RunningSandbox;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  sandbox = await startSandbox({ seed: join(SAMPLES, 'store.json') });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

it('on a 390 px screen every amount of a products plan stays on one line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-phone-'));
  const env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
  // Prices beside long text in the same card (a description, a link, tags) squeeze their column.
  const long = 'https://example.com/a-very-long-address-without-any-space-in-it-at-all-'.repeat(3);
  writeFileSync(
    join(dir, 'phone.csv'),
    [
      'reference_id,price,original_price,description,tags',
      `ERP-0000001,11.90,1234567.90,"${long} and then some words of a long description that goes on",${'tag|'.repeat(20)}x`,
      `ERP-0000002,99999.90,,${long},`,
      '',
    ].join('\n'),
  );
  const planned = await runCli(['import', 'products', join(dir, 'phone.csv'), '--json'], env, dir);
  const { reportHtml } = planned.json<{ reportHtml: string }>();
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 3, isMobile: true });
  await page.goto(pathToFileURL(reportHtml).href);
  // The script draws cards as the page scrolls: scroll to the end so all of them are there.
  for (let i = 0; i < 20; i++)
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const amounts = await page.evaluate(() => {
    const found: { text: string; lines: number }[] = [];
    for (const cell of document.querySelectorAll('td')) {
      const text = (cell.textContent ?? '').trim();
      if (!/^[+-]?[\d,]+\.\d+ [A-Z]{3}$/.test(text.replace(/\u00a0/g, ' ')) || cell.firstChild === null)
        continue;
      const range = document.createRange();
      range.selectNodeContents(cell.firstChild);
      const tops = new Set<number>();
      for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
      found.push({ text, lines: tops.size });
    }
    return found;
  });
  await page.close();
  expect(amounts.length).toBeGreaterThanOrEqual(4);
  expect(amounts.filter((a) => a.lines !== 1)).toEqual([]);
}, 60_000);

import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import type { FeedStep } from '../../../src/export/feed-publish.js';
import { exportOrdersIncremental } from '../../../src/export/export-orders-incremental.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import type { Order } from '../../../src/schema/index.js';
import { fromArray } from './order-factory.js';

/**
 * Issue 39: a journal feed goes through the feed's one staged publish with its ledger, so a run that
 * dies at any step and the run after it post every order exactly once, none missing.
 */
const dir = mkdtempSync(join(tmpdir(), 'mbulk-journal-crash-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const snap = generateStore({
  country: 'GB',
  currency: 'GBP',
  orders: 80,
  seed: 11,
  now: '2027-03-01T00:00:00Z',
});
const revenue = (o: Order): boolean =>
  o.payment_status === 'paid' && o.order_status !== 'cancelled' && o.order_status !== 'draft';

class Crash extends Error {}

const run = (cwd: string, at: string, crashAt?: FeedStep) =>
  exportOrdersIncremental({
    orders: fromArray(snap.orders),
    store: snap.me,
    path: join(cwd, 'journal-{date}.csv'),
    format: 'csv',
    stateFile: join(cwd, 'exports.json'),
    feed: 'journals',
    now: new Date(at),
    accounting: { profile: 'xero', journal: 'day', accounts: 'payment=090' },
    ...(crashAt
      ? {
          onStep: (step: FeedStep) => {
            if (step === crashAt) throw new Crash(step);
          },
        }
      : {}),
  });

/** Payments posted over every published journal file, in minor units. */
function paymentsPosted(cwd: string): number {
  let sum = 0;
  for (const f of readdirSync(cwd).filter((x) => /^journal-.*\.csv$/.test(x) && !x.includes('-totals'))) {
    const rows = Papa.parse<Record<string, string>>(readFileSync(join(cwd, f), 'utf8'), {
      header: true,
      skipEmptyLines: true,
    }).data;
    for (const r of rows)
      if ((r['Description'] ?? '').includes('Payments:')) sum += Math.round(Number(r['*Amount']) * 100);
  }
  return sum;
}

describe('a journal feed that dies mid-publish', () => {
  const want = snap.orders.filter(revenue).reduce((s, o) => s + o.total_amount, 0);
  for (const step of ['staged', 'marked', 'published:1', 'saved'] as const) {
    it(`dies at ${step}: the next run posts every order exactly once`, async () => {
      const cwd = mkdtempSync(join(dir, `${step.replace(':', '-')}-`));
      await expect(run(cwd, '2027-03-01T06:00:00Z', step)).rejects.toThrow(Crash);
      await run(cwd, '2027-03-01T07:00:00Z');
      await run(cwd, '2027-03-01T08:00:00Z');
      expect(paymentsPosted(cwd)).toBe(want);
    });
  }
});

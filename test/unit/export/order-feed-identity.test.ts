import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors/usage-error.js';
import {
  exportOrdersIncremental,
  incrementalStateKey,
} from '../../../src/export/export-orders-incremental.js';
import { exportOrders } from '../../../src/export/export-orders.js';
import { feedStateKey } from '../../../src/export/feed-state-key.js';
import { datedFileName, feedRunFiles } from '../../../src/export/feed-file-name.js';
import { orderPeriodBounds } from '../../../src/export/order-period.js';
import { REVENUE_SELECTION } from '../../../src/export/order-selection.js';
import { loadExportState } from '../../../src/export/watermark.js';
import type { Order } from '../../../src/schema/order.js';
import { makeOrder, STORE } from './order-factory.js';

/**
 * Issue 21: the incremental export's identity (state key, same-day naming, stale-part check) is
 * the library's, so a library caller gets what `mbulk export orders --incremental` gets.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-feed-identity-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* list(orders: Order[]): AsyncGenerator<Order> {
  yield* orders;
}

describe('feed state key', () => {
  it('is per store, feed, profile, selection and period (as typed), never per file name', () => {
    expect(feedStateKey({ storeId: 'store_1' })).toBe('store_1 feed=orders');
    expect(
      feedStateKey({
        storeId: 'store_1',
        feed: 'nightly',
        profile: 'xero',
        selection: REVENUE_SELECTION,
        period: { since: '2026-11-01', updatedSince: '2026-11-02' },
      }),
    ).toBe(
      'store_1 feed=nightly profile=xero ?order_status=completed,confirmed,pending&payment_status=paid&since=2026-11-01&updated_since=2026-11-02',
    );
  });

  it("is the library's default: two calls with the same identity and different file names share one watermark", async () => {
    const stateFile = join(dir, 'shared', 'exports.json');
    const orders = [makeOrder({ id: 'a', createdAt: '2026-11-01T01:00:00Z' })];
    const common = {
      store: STORE,
      format: 'csv' as const,
      stateFile,
      feed: 'nightly',
      period: { since: '2026-10-01' },
      now: new Date('2026-11-02T00:00:00Z'),
    };
    const first = await exportOrdersIncremental({
      ...common,
      orders: list(orders),
      path: join(dir, 'a-{to}.csv'),
    });
    expect(first.orders).toBe(1);
    expect(first.stateKey).toBe('store_1 feed=nightly ?since=2026-10-01');
    const second = await exportOrdersIncremental({
      ...common,
      orders: list(orders),
      path: join(dir, 'b-{to}.csv'),
      now: new Date('2026-11-03T00:00:00Z'),
    });
    expect(second).toMatchObject({ orders: 0, resumed: true });
    expect(Object.keys((await loadExportState(stateFile)).exports)).toEqual([first.stateKey]);
    // Without a typed period the key names the filter's instants; the CLI always passes the period.
    expect(incrementalStateKey({ store: STORE, filter: { since: new Date('2026-10-01T00:00:00Z') } })).toBe(
      'store_1 feed=orders ?since=2026-10-01T00:00:00.000Z',
    );
  });
});

describe('feed file names', () => {
  it('a second run of a dated feed on the same day writes beside the first, never over it', async () => {
    const sub = join(dir, 'same-day');
    const stateFile = join(sub, 'exports.json');
    const template = join(sub, 'orders-{date}.csv');
    const run = (now: string, orders: Order[]) =>
      exportOrdersIncremental({
        orders: list(orders),
        store: STORE,
        path: template,
        format: 'csv',
        stateFile,
        now: new Date(now),
      });
    const first = await run('2026-11-22T20:00:00Z', [
      makeOrder({ id: 'a', createdAt: '2026-11-22T10:00:00Z' }),
    ]);
    // Asia/Jakarta (UTC+7): 20:00Z is the 23rd there.
    expect(first.paths.orders).toBe(join(sub, 'orders-2026-11-23.csv'));
    expect(first.earlierRun).toBeUndefined();
    const second = await run('2026-11-22T21:00:00Z', [
      makeOrder({ id: 'b', createdAt: '2026-11-22T20:30:00Z' }),
    ]);
    expect(second.earlierRun).toBe(join(sub, 'orders-2026-11-23.csv'));
    expect(second.paths.orders).not.toBe(first.paths.orders);
    expect(await readFile(first.paths.orders, 'utf8')).toContain('\na,');
    expect(await readFile(second.paths.orders, 'utf8')).toContain('\nb,');
  });

  it('fills {date}/{to} for a dated export and refuses {from} or an unknown placeholder outside a feed', () => {
    const at = new Date('2026-11-23T17:30:00Z');
    expect(datedFileName('o-{date}.csv', at, 'Asia/Jakarta')).toBe('o-2026-11-24.csv');
    expect(datedFileName('plain.csv', at, 'Asia/Jakarta')).toBe('plain.csv');
    expect(() => datedFileName('o-{from}.csv', at, 'UTC')).toThrow(UsageError);
    expect(() =>
      feedRunFiles({ path: 'o-{day}.csv' }, { runAt: at, from: null, timezone: 'UTC', exists: () => false }),
    ).toThrow(UsageError);
  });
});

describe('order period', () => {
  it('turns days in the store zone into instants and refuses what cannot be exported', () => {
    const b = orderPeriodBounds({ since: '2026-11-01', until: '2026-11-30' }, 'Asia/Jakarta');
    expect(b.since?.toISOString()).toBe('2026-10-31T17:00:00.000Z');
    expect(b.until?.toISOString()).toBe('2026-11-30T17:00:00.000Z');
    expect(
      orderPeriodBounds({ updatedSince: '2026-11-01T08:00:00Z' }, 'UTC').updatedSince?.toISOString(),
    ).toBe('2026-11-01T08:00:00.000Z');
    expect(() => orderPeriodBounds({ since: '2026-11-31' }, 'UTC')).toThrow(/--since/);
    expect(() => orderPeriodBounds({ since: '2026-11-02', until: '2026-11-01' }, 'UTC')).toThrow(
      /--until is before --since/,
    );
    expect(() => orderPeriodBounds({ updatedSince: 'yesterday' }, 'UTC')).toThrow(UsageError);
  });
});

describe('stale parts of a profile export', () => {
  it('are listed in the result, never deleted', async () => {
    const sub = join(dir, 'parts');
    const path = join(sub, 'xero.csv');
    const orders = Array.from({ length: 5 }, (_, i) => makeOrder({ id: `o${i}`, number: String(100 + i) }));
    const accounting = { profile: 'xero' as const, invoicesPerFile: 2, taxType: 'Tax Exempt' };
    const big = await exportOrders({ orders: list(orders), store: STORE, path, format: 'csv', accounting });
    expect(big.paths.parts).toHaveLength(3);
    expect(big.staleParts).toEqual([]);
    const small = await exportOrders({
      orders: list(orders.slice(0, 1)),
      store: STORE,
      path,
      format: 'csv',
      accounting,
    });
    expect(small.paths.parts).toEqual([path]);
    expect(small.staleParts).toEqual(big.paths.parts?.slice(1));
    for (const stale of small.staleParts ?? []) expect(existsSync(stale)).toBe(true);
    expect((await readdir(sub)).filter((f) => /^xero(-part\d+)?\.csv$/.test(f)).sort()).toEqual([
      'xero-part2.csv',
      'xero-part3.csv',
      'xero.csv',
    ]);
  });
});

describe('export destination', () => {
  it('a folder as the file is a usage error, before anything is read', async () => {
    let read = false;
    async function* orders(): AsyncGenerator<Order> {
      read = true;
      yield makeOrder();
    }
    await writeFile(join(dir, 'x'), '');
    await expect(exportOrders({ orders: orders(), store: STORE, path: dir, format: 'csv' })).rejects.toThrow(
      /is a folder/,
    );
    expect(read).toBe(false);
  });
});

describe('an accounting feed', () => {
  const accounting = {
    profile: 'xero' as const,
    invoicesPerFile: 1,
    taxType: '10% Sales',
    zeroTaxType: 'No tax',
  };
  const paid = (id: string, number: string, createdAt: string): Order => ({
    ...makeOrder({ id, number, createdAt, tax: 255 }),
    order_status: 'completed',
  });

  it('names a rerun and its parts apart (-run2-part2), and keeps its ledger with the watermark through a failed run', async () => {
    const sub = join(dir, 'books');
    const stateFile = join(sub, 'exports.json');
    const feed = (orders: AsyncIterable<Order>, now: string) =>
      exportOrdersIncremental({
        orders,
        store: STORE,
        path: join(sub, 'xero-{date}.csv'),
        format: 'csv',
        stateFile,
        accounting,
        now: new Date(now),
      });
    const a = paid('a', '1', '2026-11-22T01:00:00Z');
    const b = paid('b', '2', '2026-11-22T02:00:00Z');
    const first = await feed(list([a, b]), '2026-11-22T20:00:00Z');
    expect(first.paths.parts).toEqual([
      join(sub, 'xero-2026-11-23.csv'),
      join(sub, 'xero-2026-11-23-part2.csv'),
    ]);
    expect(Object.keys(first.watermark.ledger?.orders ?? {})).toEqual(['a', 'b']);
    const saved = await readFile(stateFile, 'utf8');

    // A refund of `a`, then a run that fails half-way: neither the ledger nor the watermark moves.
    const refunded: Order = { ...a, payment_status: 'refunded', updated_at: '2026-11-22T20:30:00Z' };
    const c = paid('c', '3', '2026-11-22T20:40:00Z');
    async function* failing(): AsyncGenerator<Order> {
      yield refunded;
      throw new Error('connection reset');
    }
    await expect(feed(failing(), '2026-11-22T21:00:00Z')).rejects.toThrow('connection reset');
    expect(await readFile(stateFile, 'utf8')).toBe(saved);

    // The next run (same day) takes it all again, beside the first run's files.
    const d = paid('d', '4', '2026-11-22T20:45:00Z');
    const again = await feed(list([refunded, b, c, d]), '2026-11-22T22:00:00Z');
    expect(again.earlierRun).toBe(join(sub, 'xero-2026-11-23.csv'));
    expect(again.paths.parts).toEqual([
      join(sub, 'xero-2026-11-23-run2.csv'),
      join(sub, 'xero-2026-11-23-run2-part2.csv'),
    ]);
    expect(again.accounting?.paths.creditNotes).toEqual([join(sub, 'xero-2026-11-23-run2-credit-notes.csv')]);
    expect(again.accounting).toMatchObject({ invoices: 2, creditNotes: 1 });
    expect(again.watermark.ledger?.orders['a']?.total).toBe(0);
    const credit = await readFile(join(sub, 'xero-2026-11-23-run2-credit-notes.csv'), 'utf8');
    expect(credit).toContain('CN-1-2,1,');
  });
});

describe('one run of a feed at a time', () => {
  it('refuses a second run of the same feed while the first is running (refused, naming the process), then runs once it is done', async () => {
    const sub = join(dir, 'locked');
    const stateFile = join(sub, 'exports.json');
    let release = (): void => {};
    const held = new Promise<void>((done) => (release = done));
    async function* slow(): AsyncGenerator<Order> {
      await held;
      yield makeOrder({ id: 'a', createdAt: '2026-11-01T01:00:00Z' });
    }
    const run = (orders: AsyncIterable<Order>) =>
      exportOrdersIncremental({
        orders,
        store: STORE,
        path: join(sub, 'o-{to}.csv'),
        format: 'csv',
        stateFile,
        now: new Date('2026-11-02T00:00:00Z'),
      });
    const first = run(slow());
    await new Promise((done) => setTimeout(done, 50));
    const second = run(list([]));
    await expect(second).rejects.toThrow(/is held by process \d+/);
    release();
    expect((await first).orders).toBe(1);
    expect((await run(list([]))).orders).toBe(0);
  });
});

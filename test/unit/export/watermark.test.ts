import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportOrdersIncremental } from '../../../src/export/export-orders-incremental.js';
import {
  createIncrementalSelector,
  loadExportState,
  orderChangeTime,
  saveExportState,
} from '../../../src/export/watermark.js';
import { feedStateKey } from '../../../src/export/feed-state-key.js';
import type { Order } from '../../../src/schema/order.js';
import { makeOrder, STORE } from './order-factory.js';

const at = (hhmm: string): string => `2026-11-01T${hhmm}:00.000Z`;

/**
 * A store whose list endpoint is simulated: newest first, read lazily, and able to change while it
 * is being read (`during` runs after the order at that position has been yielded).
 */
class FakeStore {
  private readonly orders = new Map<string, Order>();
  private seq = 0;
  add(id: string, createdAt: string): void {
    this.orders.set(id, makeOrder({ id, number: String(++this.seq), createdAt }));
  }
  update(id: string, updatedAt: string): void {
    const order = this.orders.get(id);
    if (!order) throw new Error(id);
    this.orders.set(id, { ...order, updated_at: updatedAt, remark: `changed at ${updatedAt}` });
  }
  async *list(during: Record<number, () => void> = {}): AsyncGenerator<Order> {
    const ids = [...this.orders.values()]
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .map((o) => o.id);
    for (const [i, id] of ids.entries()) {
      yield this.orders.get(id) as Order; // read the current version when the "page" is read
      during[i]?.();
    }
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-watermark-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('incremental order export across runs', () => {
  it('exports each new order and each change exactly once over three runs', async () => {
    const store = new FakeStore();
    const stateFile = join(dir, 'state', 'exports.json');
    const path = join(dir, 'orders-{to}.json');
    const exported: string[] = []; // `${id}@${updated_at}` of every order written, all runs
    const run = async (now: string, during?: Record<number, () => void>): Promise<string[]> => {
      const result = await exportOrdersIncremental({
        orders: store.list(during),
        store: STORE,
        path,
        format: 'json',
        stateFile,
        now: new Date(now),
      });
      const versions = (JSON.parse(await readFile(result.paths.orders, 'utf8')) as Order[]).map(
        (o) => `${o.id}@${o.updated_at}`,
      );
      expect(result.orders).toBe(versions.length);
      exported.push(...versions);
      return versions.sort();
    };

    // Run 1 (10:00): everything so far.
    for (let i = 1; i <= 5; i++) store.add(`ord_${i}`, at(`09:${String(i * 10 - 10).padStart(2, '0')}`));
    expect(await run(at('10:00'))).toHaveLength(5);

    // Between runs: a new order, a change, and an order stamped 09:35 (before run 1's watermark, 09:40) that only became visible after run 1.
    store.add('ord_6', at('10:05'));
    store.update('ord_2', at('10:06'));
    store.add('ord_7', at('09:35'));
    // Run 2 (10:30) is long: ord_6 changes after it has been read (10:31), ord_1 changes before (10:45).
    const run2 = await run(at('10:30'), {
      0: () => store.update('ord_6', at('10:31')),
      3: () => store.update('ord_1', at('10:45')),
    });
    expect(run2).toEqual(
      [`ord_6@${at('10:05')}`, `ord_7@${at('09:35')}`, `ord_2@${at('10:06')}`, `ord_1@${at('10:45')}`].sort(),
    );

    // Between: another new order and another change.
    store.add('ord_8', at('10:50'));
    store.update('ord_3', at('10:55'));
    const run3 = await run(at('11:00'));
    // ord_6's mid-run change is caught; ord_1's 10:45 version (inside the overlap) is not repeated.
    expect(run3).toEqual([`ord_6@${at('10:31')}`, `ord_8@${at('10:50')}`, `ord_3@${at('10:55')}`].sort());

    // Nothing changed: nothing exported.
    expect(await run(at('11:30'))).toEqual([]);

    // Exactly once: no version twice, and every order's current version was exported.
    expect(new Set(exported).size).toBe(exported.length);
    const current = [];
    for await (const o of store.list()) current.push(`${o.id}@${o.updated_at}`);
    for (const version of current) expect(exported).toContain(version);
  });

  it('--full exports everything again and restarts the watermark; a failed run keeps the old one', async () => {
    const store = new FakeStore();
    const stateFile = join(dir, 'full-state.json');
    const path = join(dir, 'full-{to}.json');
    store.add('a', at('08:00'));
    store.add('b', at('08:10'));
    const base = { store: STORE, path, format: 'json' as const, stateFile };
    await exportOrdersIncremental({ ...base, orders: store.list(), now: new Date(at('09:00')) });
    const again = await exportOrdersIncremental({
      ...base,
      orders: store.list(),
      now: new Date(at('09:30')),
    });
    expect(again.orders).toBe(0);
    expect(again.resumed).toBe(true);
    const full = await exportOrdersIncremental({
      ...base,
      orders: store.list(),
      full: true,
      now: new Date(at('10:00')),
    });
    expect(full).toMatchObject({ orders: 2, resumed: false });

    const before = await readFile(stateFile, 'utf8');
    store.add('c', at('10:10'));
    async function* failing(): AsyncGenerator<Order> {
      yield* store.list();
      throw new Error('connection reset');
    }
    await expect(
      exportOrdersIncremental({ ...base, orders: failing(), now: new Date(at('10:30')) }),
    ).rejects.toThrow('connection reset');
    expect(await readFile(stateFile, 'utf8')).toBe(before);
    const retry = await exportOrdersIncremental({
      ...base,
      orders: store.list(),
      now: new Date(at('10:40')),
    });
    expect(retry.orders).toBe(1);
  });
});

describe('incremental selector', () => {
  it('keeps only the versions inside the overlap window in its state', () => {
    const sel = createIncrementalSelector(null, {
      storeId: 's',
      destination: 'x.csv',
      overlapMs: 10 * 60_000,
      runStartedAt: new Date(at('12:00')),
    });
    const orders = [at('09:00'), at('11:45'), at('11:52'), at('11:58')].map((t, i) =>
      makeOrder({ id: `o${i}`, createdAt: t }),
    );
    for (const o of orders) {
      expect(sel.accept(o)).toBe(true);
      sel.record(o);
    }
    const entry = sel.next();
    expect(entry.watermark).toBe(at('11:58'));
    expect(entry.recent.map((v) => v.id).sort()).toEqual(['o2', 'o3']);
    expect(entry.destination).toBe(resolve('x.csv'));

    const next = createIncrementalSelector(entry, {
      storeId: 's',
      destination: 'x.csv',
      overlapMs: 10 * 60_000,
    });
    expect(next.accept(orders[3]!)).toBe(false); // same version, inside the window: already exported
    expect(next.accept(makeOrder({ id: 'late', createdAt: at('11:50') }))).toBe(true); // late arrival in the window
    expect(next.accept(makeOrder({ id: 'old', createdAt: at('11:47') }))).toBe(false); // before the window
    expect(next.accept(makeOrder({ id: 'o0', createdAt: at('09:00'), updatedAt: at('12:01') }))).toBe(true);
  });

  it('caps the watermark at the run start so changes made during a long run are not skipped', () => {
    const sel = createIncrementalSelector(null, {
      storeId: 's',
      destination: 'x',
      overlapMs: 60_000,
      runStartedAt: new Date(at('12:00')),
    });
    const o = makeOrder({ id: 'future', createdAt: at('12:30') });
    sel.record(o);
    const entry = sel.next();
    expect(entry.watermark).toBe(at('12:00'));
    expect(entry.recent).toEqual([{ id: 'future', changed_at: at('12:30') }]);
  });

  it('uses max(updated_at, created_at) as the change time', () => {
    expect(orderChangeTime({ created_at: at('10:00'), updated_at: at('09:00') })).toBe(
      Date.parse(at('10:00')),
    );
    expect(orderChangeTime({ created_at: at('10:00'), updated_at: at('11:00') })).toBe(
      Date.parse(at('11:00')),
    );
  });
});

describe('export state file', () => {
  it('round-trips, starts empty when missing, and refuses a corrupt file', async () => {
    const file = join(dir, 'nested', 'exports.json');
    expect(await loadExportState(file)).toEqual({ version: 1, exports: {} });
    const key = feedStateKey({ storeId: 'store_1' });
    const state = {
      version: 1 as const,
      exports: {
        [key]: {
          store_id: 'store_1',
          destination: resolve('orders.csv'),
          watermark: at('10:00'),
          recent: [{ id: 'a', changed_at: at('09:55') }],
          exported_at: at('10:01'),
          orders_exported: 3,
        },
      },
    };
    await saveExportState(file, state);
    expect(await loadExportState(file)).toEqual(state);
    await writeFile(file, '{"version":1,"exports":{"k":{"watermark":5}}}');
    await expect(loadExportState(file)).rejects.toThrow(/not a valid export state file/);
    await writeFile(file, '{"version":1,');
    await expect(loadExportState(file)).rejects.toThrow(/not a valid export state file/);
    // A usage error (exit 2), as the CLI reported it: the user's file, not a failed export.
    await expect(loadExportState(file)).rejects.toMatchObject({ category: 'usage' });
  });
});

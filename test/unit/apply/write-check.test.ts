import { describe, expect, it } from 'vitest';
import {
  handOverListing,
  takeListing,
  WriteCheck,
  type FirstListing,
} from '../../../src/apply/write-check.js';
import type { RunDirectory } from '../../../src/apply/run-directory.js';

const PLANNED = '2026-11-23T12:00:00.000Z';
const at = (ms: number) => () => Date.parse(PLANNED) + ms;
const fresh = { attempt: 1, resumed: false, previous: 'not_started' } as const;

describe('WriteCheck', () => {
  it('re-reads once the plan is older than the threshold, or always when strict', () => {
    expect(new WriteCheck(PLANNED, { now: at(4_999) }).due(fresh)).toBe(false);
    expect(new WriteCheck(PLANNED, { now: at(5_000) }).due(fresh)).toBe(true);
    expect(new WriteCheck(PLANNED, { now: at(0), strict: true }).due(fresh)).toBe(true);
    expect(new WriteCheck(PLANNED, { now: at(100), afterMs: 50 }).due(fresh)).toBe(true);
  });

  it('does not re-check a write an earlier session may have applied; does re-check one that failed', () => {
    const check = new WriteCheck(PLANNED, { strict: true });
    expect(check.due({ attempt: 2, resumed: true, previous: 'unknown' })).toBe(false);
    expect(check.due({ attempt: 2, resumed: true, previous: 'failed' })).toBe(true);
  });

  it('default: updates use the shared listing when it costs no more requests than one get-one each; strict: get-one until get-one is missing (one warning)', () => {
    const cheap = new WriteCheck(PLANNED, {});
    cheap.preferListing(7, 600);
    expect(cheap.usesListing).toBe(true);
    expect(cheap.entityDue({ ...fresh })).toBe(false);
    const costly = new WriteCheck(PLANNED, {});
    costly.preferListing(1000, 50);
    expect(costly.usesListing).toBe(false);

    const warnings: string[] = [];
    const check = new WriteCheck(PLANNED, { strict: true }, (m) => warnings.push(m));
    check.preferListing(1, 600);
    expect(check.usesListing).toBe(false);
    expect(check.entityDue(fresh)).toBe(true);
    check.getOneMissing('GET /api/v2/products/{id}');
    check.getOneMissing('GET /api/v2/products/{id}');
    expect(check.usesListing).toBe(true);
    expect(check.due(fresh)).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('checked against a fresh listing');
  });

  it('shares one listing between concurrent writes; past its refresh time a new read starts in the background while the old one serves, and past twice that writes wait for the new one', async () => {
    let t = 10_000;
    const check = new WriteCheck(PLANNED, { listingRefreshMs: 2000, now: () => Date.parse(PLANNED) + t });
    let loads = 0;
    let gate: (() => void) | undefined;
    const load = async () => {
      loads++;
      const n = loads;
      if (n === 2) await new Promise<void>((r) => (gate = r));
      else await new Promise((r) => setTimeout(r, 5));
      return new Map([['ref', n]]);
    };
    const [a, b] = await Promise.all([check.snapshot('products', load), check.snapshot('products', load)]);
    expect(a).toBe(b);
    expect(loads).toBe(1);
    t += 1_500; // younger than 2 s: reused, no read
    expect((await check.snapshot('products', load)).get('ref')).toBe(1);
    expect(loads).toBe(1);
    t += 1_000; // 2.5 s: stale, a read starts in the background; the old one still serves
    expect((await check.snapshot('products', load)).get('ref')).toBe(1);
    expect(loads).toBe(2);
    t += 2_000; // 4.5 s: too old, the write waits for the read under way (no third read)
    const waiting = check.snapshot('products', load);
    gate?.();
    expect((await waiting).get('ref')).toBe(2);
    expect(check.collectionReads).toBe(2);
  });

  it('strict: a listing is reused only for 10× its read time, never served stale', async () => {
    let t = 10_000;
    const check = new WriteCheck(PLANNED, { strict: true, now: () => Date.parse(PLANNED) + t });
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 5));
      return loads;
    };
    expect(await check.snapshot('customers', load)).toBe(1);
    t += 2_000; // far more than 10 × ~5 ms
    expect(await check.snapshot('customers', load)).toBe(2);
  });

  it('a failed collection read is not cached', async () => {
    const check = new WriteCheck(PLANNED, { strict: true });
    await expect(check.snapshot('customers', () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    await expect(check.snapshot('customers', () => Promise.resolve(1))).resolves.toBe(1);
  });
});

describe("WriteCheck: the run's own read as the first listing (seed)", () => {
  /** A read of 327 pages that started 10 s after planning and took 6.5 s (one slow listing). */
  const own = (value: unknown = new Map([['ref', 0]])): FirstListing => ({
    name: 'products',
    startedAt: Date.parse(PLANNED) + 10_000,
    readMs: 6_500,
    value,
  });
  const failing = (): Promise<Map<string, number>> => Promise.reject(new Error('the listing was read again'));

  it('is used whatever its read time while younger than max(3 s, 10 × that time), aged from when it started: no read of its own', async () => {
    let t = 10_000;
    const check = new WriteCheck(PLANNED, { now: () => Date.parse(PLANNED) + t });
    // One read costs more requests than one get-one per write (a few writes into a big catalog).
    check.preferListing(328, 5);
    expect(check.usesListing).toBe(false);
    check.seed(own());
    expect(check.usesListing).toBe(true);
    expect(check.entityDue(fresh)).toBe(false);
    t += 64_000; // 64 s after the read started: younger than 65 s
    expect((await check.snapshot('products', failing)).get('ref')).toBe(0);
    expect(check.usesListing).toBe(true);
    expect(check.collectionReads).toBe(0);
    t += 1_000; // 65 s: too old, and a read of its own costs more than the get-ones
    expect(check.usesListing).toBe(false);
    expect(check.entityDue(fresh)).toBe(true);
  });

  it('when a read costs no more than the get-ones, it is re-read in the background past its refresh time (the old one serving), and writes wait past twice that, however slow the reads', async () => {
    let t = 10_000;
    const check = new WriteCheck(PLANNED, { now: () => Date.parse(PLANNED) + t });
    check.preferListing(328, 360);
    check.seed(own());
    let gate: (() => void) | undefined;
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise<void>((r) => (gate = r));
      return new Map([['ref', loads]]);
    };
    t += 66_000; // past 65 s: a read starts, the handed-over one still serves
    expect((await check.snapshot('products', load)).get('ref')).toBe(0);
    expect(loads).toBe(1);
    expect(check.usesListing).toBe(true);
    t += 70_000; // 136 s, past twice 65 s: the write waits for the read under way
    const waiting = check.snapshot('products', load);
    gate?.();
    expect((await waiting).get('ref')).toBe(1);
    expect(loads).toBe(1);
    expect(check.usesListing).toBe(true);
  });

  it('strict: ignored (each update re-reads its entity; a create reads a listing of its own)', async () => {
    const check = new WriteCheck(PLANNED, { strict: true, now: at(10_000) });
    check.preferListing(1, 600);
    check.seed(own());
    expect(check.usesListing).toBe(false);
    expect(check.entityDue(fresh)).toBe(true);
    expect(await check.snapshot('products', () => Promise.resolve(new Map([['ref', 9]])))).toEqual(
      new Map([['ref', 9]]),
    );
    expect(check.collectionReads).toBe(1);
  });

  it("is handed over to the run's apply once", () => {
    const run = {} as RunDirectory;
    expect(takeListing(run)).toBeUndefined();
    handOverListing(run, own('first'));
    handOverListing(run, own('second'));
    expect(takeListing(run)?.value).toBe('second');
    expect(takeListing(run)).toBeUndefined();
  });
});

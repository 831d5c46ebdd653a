import { describe, expect, it } from 'vitest';
import { WriteCheck } from '../../../src/apply/write-check.js';

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

  it('turns per-entity re-reads off once get-one is missing, with one warning', () => {
    const warnings: string[] = [];
    const check = new WriteCheck(PLANNED, { strict: true }, (m) => warnings.push(m));
    expect(check.entityDue(fresh)).toBe(true);
    check.getOneMissing('GET /api/v2/products/{id}');
    check.getOneMissing('GET /api/v2/products/{id}');
    expect(check.entityDue(fresh)).toBe(false);
    expect(check.due(fresh)).toBe(true); // creates still re-check against the listing
    expect(warnings).toHaveLength(1);
  });

  it('shares one collection read between concurrent creates and reads again once it is older than the threshold', async () => {
    let t = 10_000;
    const check = new WriteCheck(PLANNED, { now: () => Date.parse(PLANNED) + t });
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 5));
      return new Map([['ref', loads]]);
    };
    const [a, b] = await Promise.all([check.snapshot('products', load), check.snapshot('products', load)]);
    expect(a).toBe(b);
    expect(loads).toBe(1);
    t += 4_000;
    await check.snapshot('products', load);
    expect(loads).toBe(1);
    t += 2_000;
    expect((await check.snapshot('products', load)).get('ref')).toBe(2);
    expect(check.collectionReads).toBe(2);
  });

  it('a failed collection read is not cached', async () => {
    const check = new WriteCheck(PLANNED, { strict: true });
    await expect(check.snapshot('customers', () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    await expect(check.snapshot('customers', () => Promise.resolve(1))).resolves.toBe(1);
  });
});

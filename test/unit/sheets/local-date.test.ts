import { describe, expect, it } from 'vitest';
import { formatLocalDate, toLocalDate, zoneOffsetMs } from '../../../src/sheets/sheet-writer.js';

const local = (v: unknown, type: 'date' | 'datetime', tz: string) => {
  const d = toLocalDate(v, type, tz);
  return d ? formatLocalDate(d, type) : null;
};

describe('store-timezone dates', () => {
  it('converts instants to the wall clock, across DST', () => {
    expect(local('2026-01-15T12:00:00Z', 'datetime', 'Europe/London')).toBe('2026-01-15 12:00:00');
    expect(local('2026-07-15T12:00:00Z', 'datetime', 'Europe/London')).toBe('2026-07-15 13:00:00');
    expect(local('2026-03-08T06:59:59Z', 'datetime', 'America/New_York')).toBe('2026-03-08 01:59:59');
    expect(local('2026-03-08T07:00:00Z', 'datetime', 'America/New_York')).toBe('2026-03-08 03:00:00');
    expect(local('2026-01-01T00:00:00+08:00', 'datetime', 'Asia/Kolkata')).toBe('2025-12-31 21:30:00');
    expect(local(new Date('2026-05-01T20:00:00Z'), 'datetime', 'UTC')).toBe('2026-05-01 20:00:00');
  });

  it('gives the local calendar date for date columns, and keeps date-only strings', () => {
    expect(local('2026-01-05T16:30:00Z', 'date', 'Asia/Kuala_Lumpur')).toBe('2026-01-06');
    expect(local('2026-01-05T16:30:00Z', 'date', 'America/Los_Angeles')).toBe('2026-01-05');
    expect(local('2026-02-01', 'date', 'Pacific/Kiritimati')).toBe('2026-02-01');
    expect(local('2026-02-01', 'datetime', 'Pacific/Kiritimati')).toBe('2026-02-01 00:00:00');
  });

  it('rejects what is not a date', () => {
    expect(toLocalDate('yesterday', 'date', 'UTC')).toBeNull();
    expect(toLocalDate('2026-01-05 10:00', 'datetime', 'UTC')).toBeNull();
    expect(toLocalDate(1_700_000_000_000, 'datetime', 'UTC')).toBeNull();
    expect(toLocalDate(new Date(Number.NaN), 'datetime', 'UTC')).toBeNull();
  });

  it('knows zone offsets', () => {
    expect(zoneOffsetMs(Date.UTC(2026, 0, 1), 'Asia/Kathmandu')).toBe((5 * 60 + 45) * 60_000);
    expect(zoneOffsetMs(Date.UTC(2026, 0, 1), 'America/St_Johns')).toBe(-(3 * 60 + 30) * 60_000);
  });

  it('gives Intl’s offset at every instant of a year, across each transition, whatever the order of the questions', () => {
    const reference = (tz: string) => {
      const fmt = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
      return (at: number): number => {
        const name = fmt.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
        const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
        return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
      };
    };
    const HOUR = 3_600_000;
    const start = Date.UTC(2026, 0, 1);
    // DST at 2:00 and 3:00 local, a 30-minute DST (Lord Howe), a +12:45 zone, and one without DST.
    for (const tz of [
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      'Asia/Jakarta',
    ]) {
      const ref = reference(tz);
      const cases: [number, number][] = [];
      let before = ref(start);
      for (let t = start; t < start + 365 * 24 * HOUR; t += 3 * HOUR) {
        const after = ref(t + 3 * HOUR);
        cases.push([t + 1_234_567, ref(t + 1_234_567)]);
        // Around a transition: every 5 minutes of the hours on either side of it.
        if (after !== before)
          for (let m = -60; m < 240; m += 5) cases.push([t + m * 60_000, ref(t + m * 60_000)]);
        before = after;
      }
      const shuffled = cases.map((_, i) => cases[(i * 7919) % cases.length] as [number, number]);
      for (const [t, offset] of [...cases, ...shuffled]) {
        if (zoneOffsetMs(t, tz) !== offset)
          expect.fail(`${tz} at ${new Date(t).toISOString()}: ${zoneOffsetMs(t, tz)} ≠ ${offset}`);
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { dayBoundaryInZone, localDateInZone } from '../../../src/export/day-boundary-in-zone.js';

describe('dayBoundaryInZone', () => {
  it('finds local midnight in fixed-offset and DST zones', () => {
    expect(dayBoundaryInZone('2026-11-01', 'Asia/Jakarta').toISOString()).toBe('2026-10-31T17:00:00.000Z');
    expect(dayBoundaryInZone('2026-11-01', 'UTC').toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(dayBoundaryInZone('2026-07-01', 'America/New_York').toISOString()).toBe(
      '2026-07-01T04:00:00.000Z',
    );
    expect(dayBoundaryInZone('2026-12-01', 'America/New_York').toISOString()).toBe(
      '2026-12-01T05:00:00.000Z',
    );
    // The DST change days themselves (changes at 02:00 local; midnight uses the offset before).
    expect(dayBoundaryInZone('2026-03-08', 'America/New_York').toISOString()).toBe(
      '2026-03-08T05:00:00.000Z',
    );
    expect(dayBoundaryInZone('2026-11-01', 'America/New_York').toISOString()).toBe(
      '2026-11-01T04:00:00.000Z',
    );
    expect(dayBoundaryInZone('2026-11-01', 'Asia/Kathmandu').toISOString()).toBe('2026-10-31T18:15:00.000Z');
  });

  it('starts the day at the first existing instant when DST skips midnight', () => {
    // Brazil, 2018-11-04: clocks went from 00:00 to 01:00 (UTC−3 → UTC−2); the day began at 03:00Z.
    expect(dayBoundaryInZone('2018-11-04', 'America/Sao_Paulo').toISOString()).toBe(
      '2018-11-04T03:00:00.000Z',
    );
  });

  it('offsets by whole days for an inclusive --until', () => {
    expect(dayBoundaryInZone('2026-11-30', 'Asia/Jakarta', 1).toISOString()).toBe('2026-11-30T17:00:00.000Z');
    expect(dayBoundaryInZone('2026-12-31', 'UTC', 1).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('rejects malformed dates and unknown zones', () => {
    expect(() => dayBoundaryInZone('2026-02-30', 'UTC')).toThrow(RangeError);
    expect(() => dayBoundaryInZone('1/11/2026', 'UTC')).toThrow(RangeError);
    expect(() => dayBoundaryInZone('2026-11-01', 'Mars/Olympus')).toThrow(RangeError);
  });
});

describe('localDateInZone', () => {
  it('gives the store-local calendar date of an instant', () => {
    expect(localDateInZone('2026-10-31T17:30:00Z', 'Asia/Jakarta')).toBe('2026-11-01');
    expect(localDateInZone('2026-10-31T16:59:59Z', 'Asia/Jakarta')).toBe('2026-10-31');
  });
});

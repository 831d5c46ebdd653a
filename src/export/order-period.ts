import { UsageError } from '../errors/usage-error.js';
import { dayBoundaryInZone } from './day-boundary-in-zone.js';

/**
 * An order export's period as the user gives it: days (`YYYY-MM-DD`) in the store's time zone,
 * and for `updatedSince` also a date-time with an offset (`2026-11-01T08:00:00Z`).
 */
export interface OrderPeriod {
  /** Created on or after this day. */
  since?: string;
  /** Created on or before this day (inclusive). */
  until?: string;
  /** Updated at or after this day or instant. */
  updatedSince?: string;
}

/** The period's instants: `since` and `updatedSince` inclusive, `until` exclusive (the next day's start). */
export interface OrderPeriodBounds {
  since?: Date;
  until?: Date;
  updatedSince?: Date;
}

function day(option: string, value: string, timezone: string, dayOffset = 0): Date {
  try {
    return dayBoundaryInZone(value.trim(), timezone, dayOffset);
  } catch (error) {
    throw new UsageError(`--${option}: ${(error as Error).message}`, option);
  }
}

/**
 * The instants of a period in the store's zone. Throws UsageError (exit 2) for a malformed day or
 * date-time, and for an `until` before `since` (nothing would be exported).
 */
export function orderPeriodBounds(period: OrderPeriod, timezone: string): OrderPeriodBounds {
  const out: OrderPeriodBounds = {};
  if (period.since !== undefined) out.since = day('since', period.since, timezone);
  if (period.until !== undefined) out.until = day('until', period.until, timezone, 1);
  if (period.updatedSince !== undefined) {
    const text = period.updatedSince.trim();
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) out.updatedSince = day('updated-since', text, timezone);
    else {
      const ms = /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? Date.parse(text) : Number.NaN;
      if (Number.isNaN(ms)) {
        throw new UsageError(
          `--updated-since must be a date (2026-11-01, in the store's time zone) or a date-time with offset (2026-11-01T08:00:00Z), got "${period.updatedSince}"`,
          'updated-since',
        );
      }
      out.updatedSince = new Date(ms);
    }
  }
  if (out.since && out.until && out.until <= out.since) {
    throw new UsageError('--until is before --since: nothing would be exported', 'until');
  }
  return out;
}

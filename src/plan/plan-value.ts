import type { PlanValue } from './product-plan.js';

/**
 * Equality for diffing sheet values against live values. Arrays compare in order. A live `null`
 * equals what a sheet writes for "nothing" where the API has no distinct empty value: `''` for
 * strings (sku, description, reference_id) and `0` for original_price (`nullIsZero`).
 */
export function sameValue(desired: unknown, live: unknown, nullIsZero = false): boolean {
  if (desired === live) return true;
  if (Array.isArray(desired) && Array.isArray(live)) {
    if (desired.length !== live.length) return false;
    for (let i = 0; i < desired.length; i++) if (desired[i] !== live[i]) return false;
    return true;
  }
  if (live === null || live === undefined) {
    return desired === '' || (nullIsZero && desired === 0);
  }
  return false;
}

/** A value as stored in the plan's change list (plain JSON). */
export function planValue(value: unknown): PlanValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return JSON.stringify(value);
}

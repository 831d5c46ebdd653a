import { showPlanValue } from './describe-changes.js';
import type { DriftedField } from './drifted-entity.js';
import type { LiveOption, LiveProduct, LiveVariant } from './live-catalog.js';
import { planValue } from './plan-value.js';
import type { FieldChange, PlanValue } from './product-plan.js';

/** `variants[S-1].price` → `['variants', 'S-1', 'price']`; `price` → `[undefined, undefined, 'price']`. */
const LISTED = /^(variants|options)\[(.*)\](?:\.(.+))?$/;

function findVariant(live: LiveProduct, name: string): LiveVariant | undefined {
  // The plan names a variant by its sku, else its name, else its id (diff-variants' label).
  return (
    live.variants.find((v) => (v.sku ?? '').trim() === name) ??
    live.variants.find((v) => v.name === name) ??
    live.variants.find((v) => v.id === name)
  );
}

function findOption(live: LiveProduct, name: string): LiveOption | undefined {
  return live.options.find((o) => o.text === name);
}

/**
 * The live value at a change's path (`price`, `variants[S-1].price`, `options[Size].required`,
 * `images`), as the plan stores values; `undefined` where the path names no single value the
 * listing shows (a whole variant or option, option settings).
 */
export function liveValueAt(live: LiveProduct, path: string): PlanValue | undefined {
  const listed = LISTED.exec(path);
  if (listed === null) {
    if (!(path in live)) return undefined;
    const value = (live as unknown as Record<string, unknown>)[path];
    return planValue(path === 'sku' && typeof value === 'string' ? value.trim() : value);
  }
  const [, list, name = '', field] = listed;
  if (field === undefined) return undefined;
  const entity = list === 'variants' ? findVariant(live, name) : findOption(live, name);
  if (entity === undefined || !(field in entity)) return undefined;
  return planValue((entity as unknown as Record<string, unknown>)[field]);
}

function same(a: PlanValue, b: PlanValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The planned changes whose field moved in the store since planning: the value planned, the
 * value live now and the one seen when planning, for people (money in currency units). Changes
 * to a path the listing cannot show (a whole variant added, option settings) are not compared.
 */
export function driftedFields(
  changes: readonly FieldChange[],
  live: LiveProduct,
  decimals: number,
): DriftedField[] {
  const out: DriftedField[] = [];
  for (const c of changes) {
    if (c.note !== undefined) continue;
    const now = liveValueAt(live, c.path);
    if (now === undefined || same(now, c.before)) continue;
    const money = c.money === true;
    out.push({
      field: c.path,
      planned: showPlanValue(c.after, money, decimals),
      live: showPlanValue(now, money, decimals),
      atPlanning: showPlanValue(c.before, money, decimals),
    });
  }
  return out;
}

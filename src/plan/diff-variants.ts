import type { DesiredVariant, DesiredVariantFields } from '../mapping/product-desired.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { VariantCreate, VariantUpdateEntry } from '../schema/product.js';
import type { LiveProduct, LiveVariant } from './live-catalog.js';
import { planIssue, spareStock } from './plan-context.js';
import type { PlanContext } from './plan-context.js';
import { planValue, sameValue } from './plan-value.js';
import type { FieldChange } from './product-plan.js';

type VariantField = Exclude<keyof DesiredVariantFields, 'id'>;

const VARIANT_FIELDS: readonly { field: VariantField; money?: true; nullIsZero?: true }[] = [
  { field: 'name' },
  { field: 'sku' },
  { field: 'description' },
  { field: 'price', money: true },
  { field: 'original_price', money: true, nullIsZero: true },
  { field: 'cost', money: true },
  { field: 'weight' },
  { field: 'inventory_quantity' },
];

export interface VariantDiff {
  /** The full `variants` list to send, or undefined when no variant changes (field left out). */
  variants?: VariantUpdateEntry[];
  changes: FieldChange[];
  issues: RowIssue[];
}

function label(f: DesiredVariantFields, lv?: LiveVariant): string {
  return f.sku ?? lv?.sku ?? f.name ?? lv?.name ?? f.id ?? lv?.id ?? '?';
}

/** The entry that keeps a live variant as it is (the spec requires name and price on every entry). */
function keepEntry(lv: LiveVariant): VariantUpdateEntry {
  return { id: lv.id, name: lv.name, price: lv.price };
}

function newVariantBody(
  ctx: PlanContext,
  dv: DesiredVariant,
  issues: RowIssue[],
): (VariantCreate & Record<string, unknown>) | undefined {
  const f = dv.fields;
  let ok = true;
  if (f.name === undefined || f.name === '') {
    issues.push(
      planIssue(
        ctx,
        dv.row,
        'variant_name',
        'variant_name_required',
        'a new variant needs a variant_name: write it',
      ),
    );
    ok = false;
  }
  if (f.price === undefined) {
    issues.push(
      planIssue(
        ctx,
        dv.row,
        'variant_price',
        'variant_price_required',
        'a new variant needs a variant_price: write it',
      ),
    );
    ok = false;
  }
  if (!ok) return undefined;
  const body: Record<string, unknown> = {};
  for (const spec of VARIANT_FIELDS) {
    const v = f[spec.field];
    if (v !== undefined) body[spec.field] = v;
  }
  return body as VariantCreate & Record<string, unknown>;
}

/** Checks that a new variant's sku is not already used by another live product. */
function checkSkuFree(ctx: PlanContext, dv: DesiredVariant, ownId: string | null, issues: RowIssue[]): void {
  const sku = dv.fields.sku;
  if (sku === undefined || sku === '') return;
  const other = ctx.catalog.byVariantSku.get(sku) ?? ctx.catalog.bySku.get(sku);
  if (other !== undefined && other.id !== ownId) {
    issues.push(
      planIssue(
        ctx,
        dv.row,
        'variant_sku',
        'variant_sku_taken',
        `variant_sku "${sku}" already belongs to product ${other.reference_id ?? other.sku} (id ${other.id}) in the store; write a different sku`,
      ),
    );
  }
}

/** Variants of a new product (ProductCreate.variants). */
export function createVariants(
  ctx: PlanContext,
  desired: readonly DesiredVariant[],
): { variants: VariantCreate[]; changes: FieldChange[]; issues: RowIssue[] } {
  const variants: VariantCreate[] = [];
  const changes: FieldChange[] = [];
  const issues: RowIssue[] = [];
  for (const dv of desired) {
    if (dv.fields.id !== undefined) {
      issues.push(
        planIssue(
          ctx,
          dv.row,
          'variant_id',
          'variant_not_found',
          `variant_id "${dv.fields.id}" cannot belong to a product that does not exist yet; leave variant_id blank for a new product`,
        ),
      );
      continue;
    }
    checkSkuFree(ctx, dv, null, issues);
    const body = newVariantBody(ctx, dv, issues);
    if (body === undefined) continue;
    variants.push(body);
    changes.push({ path: `variants[${label(dv.fields)}]`, before: null, after: null, note: 'added' });
  }
  return { variants, changes, issues };
}

/**
 * Diffs the sheet's variants of one product against the live ones. Variants match by variant_id,
 * then variant sku, then variant name. Live variants the sheet does not list are kept (their
 * `{id, name, price}` entry is sent) unless `replace.variants`. `variants` is only sent when a
 * variant changes, is added or (with replace) is removed. Order: live order, new variants appended;
 * with replace, sheet order.
 */
export function diffVariants(
  ctx: PlanContext,
  desired: readonly DesiredVariant[],
  live: LiveProduct,
): VariantDiff {
  const changes: FieldChange[] = [];
  const issues: RowIssue[] = [];
  const byId = new Map<string, LiveVariant>();
  const bySku = new Map<string, LiveVariant>();
  const byName = new Map<string, LiveVariant>();
  for (const lv of live.variants) {
    byId.set(lv.id, lv);
    if (lv.sku !== null && lv.sku.trim() !== '') bySku.set(lv.sku.trim(), lv);
    if (!byName.has(lv.name)) byName.set(lv.name, lv);
  }
  const matched = new Map<LiveVariant, VariantUpdateEntry>();
  const sheetOrder: VariantUpdateEntry[] = [];
  const added: VariantUpdateEntry[] = [];
  let changed = false;

  for (const dv of desired) {
    const f = dv.fields;
    let lv: LiveVariant | undefined;
    if (f.id !== undefined) {
      lv = byId.get(f.id);
      if (lv === undefined) {
        issues.push(
          planIssue(
            ctx,
            dv.row,
            'variant_id',
            'variant_not_found',
            `variant_id "${f.id}" is not a variant of this product in the store; leave variant_id blank to add a new variant`,
          ),
        );
        continue;
      }
    } else {
      if (f.sku !== undefined && f.sku !== '') lv = bySku.get(f.sku);
      if (lv === undefined && f.name !== undefined) {
        const byNameHit = byName.get(f.name);
        if (byNameHit !== undefined && !matched.has(byNameHit)) lv = byNameHit;
      }
    }
    if (lv !== undefined && matched.has(lv)) {
      issues.push(
        planIssue(
          ctx,
          dv.row,
          f.id !== undefined ? 'variant_id' : f.sku !== undefined ? 'variant_sku' : 'variant_name',
          'duplicate_variant_match',
          `this row names the same variant (${label(f, lv)}) as another row of this product; list each variant once`,
        ),
      );
      continue;
    }
    if (lv === undefined) {
      checkSkuFree(ctx, dv, live.id, issues);
      const body = newVariantBody(ctx, dv, issues);
      if (body === undefined) continue;
      added.push(body);
      sheetOrder.push(body);
      changes.push({ path: `variants[${label(f)}]`, before: null, after: null, note: 'added' });
      changed = true;
      continue;
    }
    if (f.sku !== undefined && f.sku !== '' && f.sku !== lv.sku?.trim())
      checkSkuFree(ctx, dv, live.id, issues);
    const entry = keepEntry(lv);
    const writable = entry as Record<string, unknown>;
    const name = label(f, lv);
    for (const spec of VARIANT_FIELDS) {
      const want = f[spec.field];
      if (want === undefined) continue;
      const have = lv[spec.field];
      if (sameValue(want, have, spec.nullIsZero === true)) continue;
      if (
        spec.field === 'inventory_quantity' &&
        spareStock(ctx, lv.inventory_updated_at, live.updated_at, want as number, lv.inventory_quantity)
      )
        continue;
      writable[spec.field] = want;
      const c: FieldChange = {
        path: `variants[${name}].${spec.field}`,
        before: planValue(have),
        after: planValue(want),
      };
      if (spec.money) c.money = true;
      changes.push(c);
      changed = true;
    }
    matched.set(lv, entry);
    sheetOrder.push(entry);
  }

  let variants: VariantUpdateEntry[];
  if (ctx.replace.variants) {
    for (const lv of live.variants) {
      if (!matched.has(lv)) {
        changes.push({ path: `variants[${lv.sku ?? lv.name}]`, before: null, after: null, note: 'removed' });
        changed = true;
      }
    }
    variants = sheetOrder;
  } else {
    variants = live.variants.map((lv) => matched.get(lv) ?? keepEntry(lv));
    for (const a of added) variants.push(a);
  }
  const out: VariantDiff = { changes, issues };
  if (changed) out.variants = variants;
  return out;
}

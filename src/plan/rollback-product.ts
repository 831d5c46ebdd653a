import { PRODUCT_FIELDS } from '../schema/product.js';
import { stableStringify } from '../schema/stable-stringify.js';
import type {
  OptionUpdateEntry,
  Product,
  ProductCreate,
  ProductUpdate,
  VariantUpdateEntry,
} from '../schema/index.js';
import { appendAll } from './append-all.js';

/**
 * How a product is put back to its saved before-state: a PATCH body of the writable fields that
 * differ now (only the fields the run wrote, when its plan says which), with the variant and
 * option lists as they were. Pure.
 */

/**
 * A variant as a restore shows it (its price in minor units: the report formats it in the store's
 * currency). Older plans hold a string (`Small 1250, stock 3`) instead.
 */
export interface VariantSummary {
  name: string;
  price: number;
  stock?: number;
}

/** One field a rollback changes, for people: `price: 1290 → 1190` (money in minor units). */
export interface RestoreChange {
  field: string;
  now: unknown;
  restore: unknown;
}

export interface ProductRestore {
  body: ProductUpdate;
  changes: RestoreChange[];
  /** What cannot be put back exactly (recreated variants get new ids, null fields…). */
  notes: string[];
}

/** Scalar and string-list fields of ProductUpdate, read back from a Product of the same name. */
const SIMPLE_FIELDS = [...PRODUCT_FIELDS, 'images'] as const;
type SimpleField = (typeof SIMPLE_FIELDS)[number];

/** Every writable field: what a rollback restores when the run's plan does not say which it wrote. */
export const PRODUCT_WRITABLE_FIELDS: readonly string[] = [
  ...SIMPLE_FIELDS,
  'inventory_quantity',
  'variants',
  'options',
];

function same(a: unknown, b: unknown): boolean {
  return stableStringify(a ?? null) === stableStringify(b ?? null);
}

export interface ProductRestoreOptions {
  /** Fields to restore (default: every writable field). */
  fields?: readonly string[] | undefined;
  /** Variants and options the run created (live now, absent before) are deleted instead of kept. */
  deleteCreated?: boolean;
  /** Restore the stock of existing variants too (default: when `fields` is not given). */
  variantStock?: boolean;
}

/** The PATCH that puts `live` back to `before` (empty body: nothing to restore). */
export function productRestore(
  before: Product,
  live: Product,
  options: ProductRestoreOptions = {},
): ProductRestore {
  const fields = new Set(options.fields ?? PRODUCT_WRITABLE_FIELDS);
  const body: Record<string, unknown> = {};
  const changes: RestoreChange[] = [];
  const notes: string[] = [];
  for (const field of SIMPLE_FIELDS) {
    if (!fields.has(field)) continue;
    const was = before[field as SimpleField];
    const now = live[field as SimpleField];
    if (same(was, now)) continue;
    if (was === null) {
      notes.push(
        `${field} was empty before the run and cannot be emptied through the API; left as ${show(now)}`,
      );
      continue;
    }
    body[field] = was;
    changes.push({ field, now, restore: was });
  }
  if (fields.has('inventory_quantity') && before.inventory && live.inventory) {
    const was = before.inventory.quantity;
    const now = live.inventory.quantity;
    if (was !== now) {
      body['inventory_quantity'] = was;
      changes.push({ field: 'inventory_quantity', now, restore: was });
    }
  }
  if (fields.has('variants')) {
    const v = restoreVariants(before, live, options, options.variantStock ?? options.fields === undefined);
    if (v) {
      body['variants'] = v.list;
      appendAll(changes, v.changes);
      appendAll(notes, v.notes);
    }
  }
  if (fields.has('options')) {
    const o = restoreOptions(before, live, options);
    if (o) {
      body['options'] = o.list;
      appendAll(changes, o.changes);
      appendAll(notes, o.notes);
    }
  }
  return { body: body as ProductUpdate, changes, notes };
}

function variantEntry(v: Product['variants'][number], withId: boolean, stock: boolean): VariantUpdateEntry {
  const e: VariantUpdateEntry = { name: v.name, price: v.price };
  if (withId) e.id = v.id;
  if (v.sku !== null) e.sku = v.sku;
  if (v.description !== null) e.description = v.description;
  if (v.original_price !== null) e.original_price = v.original_price;
  if (v.cost !== null) e.cost = v.cost;
  e.weight = v.weight;
  if (stock && v.inventory) e.inventory_quantity = v.inventory.quantity;
  return e;
}

/** What of a live variant its restore entry would change (its own fields as the entry states them). */
function variantDiffers(entry: VariantUpdateEntry, live: Product['variants'][number]): boolean {
  for (const [k, value] of Object.entries(entry)) {
    if (k === 'id') continue;
    const now = k === 'inventory_quantity' ? live.inventory?.quantity : live[k as keyof typeof live];
    if (!same(value, now)) return true;
  }
  return false;
}

function restoreVariants(
  before: Product,
  live: Product,
  options: ProductRestoreOptions,
  restoreStock: boolean,
): { list: VariantUpdateEntry[]; changes: RestoreChange[]; notes: string[] } | undefined {
  const liveById = new Map(live.variants.map((v) => [v.id, v]));
  const beforeIds = new Set(before.variants.map((v) => v.id));
  const list: VariantUpdateEntry[] = [];
  const changes: RestoreChange[] = [];
  const notes: string[] = [];
  let differs = false;
  for (const v of before.variants) {
    const now = liveById.get(v.id);
    if (now) {
      const entry = variantEntry(v, true, restoreStock);
      if (variantDiffers(entry, now)) {
        differs = true;
        changes.push({ field: `variants[${v.sku ?? v.id}]`, now: summary(now), restore: summary(v) });
      }
      list.push(entry);
    } else {
      // Deleted by the run: recreated from its saved fields, under a NEW id.
      differs = true;
      list.push(variantEntry(v, false, true));
      changes.push({ field: `variants[${v.sku ?? v.id}]`, now: '(deleted)', restore: summary(v) });
      notes.push(
        `variant ${v.id} (${v.name}) was deleted by the run: it is recreated with a new id (the old id cannot be restored; its back-in-stock requests are lost, past orders keep the old id)`,
      );
    }
  }
  for (const v of live.variants) {
    if (beforeIds.has(v.id)) continue;
    differs = true;
    if (options.deleteCreated) {
      changes.push({ field: `variants[${v.sku ?? v.id}]`, now: summary(v), restore: '(deleted)' });
      notes.push(`variant ${v.id} (${v.name}) was created by the run: deleted (--delete-created)`);
    } else {
      // Kept, after the restored ones (the order of the variants before the run comes first).
      list.push({ id: v.id, name: v.name, price: v.price });
      notes.push(
        `variant ${v.id} (${v.name}) was created by the run: kept (use --delete-created to delete it)`,
      );
    }
  }
  const order = (ids: string[]) => ids.join('|');
  if (!differs && order(before.variants.map((v) => v.id)) !== order(live.variants.map((v) => v.id))) {
    differs = true;
    changes.push({
      field: 'variants (order)',
      now: live.variants.map((v) => v.name),
      restore: before.variants.map((v) => v.name),
    });
  }
  return differs ? { list, changes, notes } : undefined;
}

function restoreOptions(
  before: Product,
  live: Product,
  options: ProductRestoreOptions,
): { list: OptionUpdateEntry[]; changes: RestoreChange[]; notes: string[] } | undefined {
  const liveById = new Map(live.options.map((o) => [o.id, o]));
  const beforeIds = new Set(before.options.map((o) => o.id));
  const list: OptionUpdateEntry[] = [];
  const changes: RestoreChange[] = [];
  const notes: string[] = [];
  let differs = false;
  for (const o of before.options) {
    const now = liveById.get(o.id);
    const entry: OptionUpdateEntry = { text: o.text, required: o.required };
    if (o.settings !== undefined) entry.settings = o.settings;
    if (now) {
      entry.id = o.id;
      if (!same(now.text, o.text) || now.required !== o.required || !same(now.settings, o.settings)) {
        differs = true;
        changes.push({ field: `options[${o.text}]`, now: now.text, restore: o.text });
      }
    } else {
      differs = true;
      entry.type = o.type;
      changes.push({ field: `options[${o.text}]`, now: '(deleted)', restore: o.text });
      notes.push(
        `option ${o.id} (${o.text}) was deleted by the run: it is recreated with a new id (the old id cannot be restored)`,
      );
    }
    list.push(entry);
  }
  for (const o of live.options) {
    if (beforeIds.has(o.id)) continue;
    differs = true;
    if (options.deleteCreated) {
      changes.push({ field: `options[${o.text}]`, now: o.text, restore: '(deleted)' });
      notes.push(`option ${o.id} (${o.text}) was created by the run: deleted (--delete-created)`);
    } else {
      const kept: OptionUpdateEntry = { id: o.id, text: o.text, required: o.required };
      if (o.settings !== undefined) kept.settings = o.settings;
      list.push(kept);
      notes.push(
        `option ${o.id} (${o.text}) was created by the run: kept (use --delete-created to delete it)`,
      );
    }
  }
  if (!differs && before.options.map((o) => o.id).join('|') !== live.options.map((o) => o.id).join('|')) {
    differs = true;
    changes.push({
      field: 'options (order)',
      now: live.options.map((o) => o.text),
      restore: before.options.map((o) => o.text),
    });
  }
  return differs ? { list, changes, notes } : undefined;
}

function summary(v: Product['variants'][number]): VariantSummary {
  return v.inventory
    ? { name: v.name, price: v.price, stock: v.inventory.quantity }
    : { name: v.name, price: v.price };
}

function show(value: unknown): string {
  return value === null || value === undefined ? '(empty)' : JSON.stringify(value);
}

/**
 * Fields of a body the run sent that the live product no longer has (someone changed them after
 * the run): empty when the live product still shows what the run wrote. Images are not compared
 * (the service re-hosts them), nor options (their settings are normalised by the service).
 */
export function productDriftFields(body: ProductCreate | ProductUpdate, live: Product): string[] {
  const drifted: string[] = [];
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined || field === 'images' || field === 'options') continue;
    if (field === 'inventory_quantity') {
      if (live.inventory && live.inventory.quantity !== value) drifted.push(field);
      continue;
    }
    if (field === 'variants') {
      const byId = new Map(live.variants.map((v) => [v.id, v]));
      for (const entry of value as VariantUpdateEntry[]) {
        if (entry.id === undefined) continue;
        const now = byId.get(entry.id);
        if (!now) drifted.push(`variants[${entry.id}] (gone)`);
        else if (variantDiffers(entry, now)) drifted.push(`variants[${entry.sku ?? entry.id}]`);
      }
      continue;
    }
    if (!same(value, live[field as keyof Product])) drifted.push(field);
  }
  return drifted;
}

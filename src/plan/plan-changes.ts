import type { FieldChange as CustomerFieldChange, CustomerPlan, CustomerPlanEntry } from './customer-plan.js';
import type { MessagePlan } from './message-plan.js';
import type { PlanEntry, FieldChange as ProductFieldChange, ProductPlan } from './product-plan.js';
import type { RestoreEntry } from './rollback-plan.js';
import type { RestoreChange } from './rollback-product.js';
import type { StockChange, StockPlan } from './stock-plan.js';
import type { TemplatePlan } from './template-plan.js';

/**
 * One field of a planned change, the same for every kind: its name, its value before and after.
 * Every plan file writes its own shape (products `{path, before, after}`, customers
 * `{field, before, after}`, rollbacks `{field, now, restore}`); the functions below are the one place
 * each becomes this, typed against the shape its planner writes, for the review pages, the
 * terminal's change lines (describe-changes.ts and each kind's describe…Change) and the MCP tools
 * alike: one reader per kind, per entry (`productEntryChange`, `customerEntryChange`, `stockChange`,
 * `restoreEntryChanges`) and per plan.
 */
export interface PlanFieldChange {
  /** `price`, `variants[S-1].price`, `email`, `quantity`. */
  field: string;
  before: unknown;
  after: unknown;
  /**
   * The values are money in minor units (1250 is 12.50 of a 2-decimal currency): a number, or the
   * `price` of a variant summary `{name, price, stock?}`.
   */
  money?: true;
  /** Whole-entry changes: a variant or option added or removed, a product created. */
  note?: 'added' | 'removed' | 'created';
}

/** What a planned change writes to. */
export type PlanEntity = 'product' | 'customer' | 'inventory_item' | 'template' | 'message';

/** One planned write: what it does to which entity, from which input row, field by field. */
export interface PlanChange {
  /** create, update, hide, delete, restore, send. */
  action: string;
  entity: PlanEntity;
  /** The live entity's id (null for a create or a send to no known customer). */
  id: string | null;
  /** How people know it: a reference, SKU, name or phone. */
  label: string;
  /** The input row it was planned from (the first one, for a product of several rows); null when none. */
  sheet: string | null;
  row: number | null;
  fields: PlanFieldChange[];
}

/** Actions of a products plan that write. */
const PRODUCT_WRITES = new Set(['create', 'update', 'hide', 'delete']);

/** A products plan's field changes (money marked by the planner). */
export function productFieldChanges(changes: readonly ProductFieldChange[]): PlanFieldChange[] {
  return changes.map((c) => ({
    field: c.path,
    before: c.before,
    after: c.after,
    ...(c.money === true ? { money: true as const } : {}),
    ...(c.note !== undefined ? { note: c.note } : {}),
  }));
}

/** A customers plan's field changes (no money: names, phones, emails). */
export function customerFieldChanges(changes: readonly CustomerFieldChange[]): PlanFieldChange[] {
  return changes.map((c) => ({ field: c.field, before: c.before, after: c.after }));
}

/** Fields of a restore that hold money in minor units. */
const RESTORE_MONEY = new Set(['price', 'original_price', 'cost']);

/** Whether a restore's field holds money: a product's prices and cost, a variant (its summary's price). */
export function restoreFieldIsMoney(field: string): boolean {
  return RESTORE_MONEY.has(field) || /^variants\[.*\]$/.test(field);
}

/** A rollback's field changes: the value now → the value it restores. */
export function restoreFieldChanges(changes: readonly RestoreChange[]): PlanFieldChange[] {
  return changes.map((c) => ({
    field: c.field,
    before: c.now,
    after: c.restore,
    ...(restoreFieldIsMoney(c.field) ? { money: true as const } : {}),
  }));
}

/** One write of a products plan (create, update, hide, delete) as every reader shows it. */
export function productEntryChange(e: PlanEntry): PlanChange {
  return {
    action: e.action,
    entity: 'product',
    id: e.productId,
    label: e.label,
    sheet: e.rows[0]?.sheet ?? null,
    row: e.rows[0]?.rowNumber ?? null,
    fields: productFieldChanges(e.changes),
  };
}

/** The writes of a products plan, in plan order. */
export function productPlanChanges(plan: Pick<ProductPlan, 'entries'>): PlanChange[] {
  return plan.entries.filter((e) => PRODUCT_WRITES.has(e.action)).map(productEntryChange);
}

/** One write of a customers plan (create or update) as every reader shows it. */
export function customerEntryChange(e: CustomerPlanEntry): PlanChange {
  return {
    action: e.action,
    entity: 'customer',
    id: e.customerId ?? null,
    label: e.create?.name ?? e.update?.name ?? e.before?.name ?? e.key,
    sheet: e.sheet,
    row: e.rowNumber,
    fields: customerFieldChanges(e.changes),
  };
}

/** The writes of a customers plan, in plan order. */
export function customerPlanChanges(plan: Pick<CustomerPlan, 'entries'>): PlanChange[] {
  return plan.entries.filter((e) => e.action === 'create' || e.action === 'update').map(customerEntryChange);
}

/** One item's new quantity in a stock plan, as every reader shows it. */
export function stockChange(c: StockChange): PlanChange {
  return {
    action: 'update',
    entity: 'inventory_item',
    id: c.itemId,
    label: c.sku ?? c.name,
    sheet: c.sheet,
    row: c.rowNumber,
    fields: [{ field: 'quantity', before: c.before, after: c.after }],
  };
}

/** The writes of a stock plan: one quantity per item. */
export function stockPlanChanges(plan: Pick<StockPlan, 'changes'>): PlanChange[] {
  return plan.changes.map(stockChange);
}

/**
 * The writes of one restore of a rollback: each item of a stock batch, a customer or product
 * restored, or a created product deleted.
 */
export function restoreEntryChanges(r: RestoreEntry): PlanChange[] {
  const base = { sheet: null, row: null };
  switch (r.type) {
    case 'stock':
      return r.items.map((i) => ({
        ...base,
        action: 'restore',
        entity: 'inventory_item',
        id: i.itemId,
        label: i.sku ?? i.itemId,
        fields: [{ field: 'quantity', before: i.current, after: i.restore }],
      }));
    case 'customer':
    case 'product':
      return [
        {
          ...base,
          action: 'restore',
          entity: r.type,
          id: r.type === 'customer' ? r.customerId : r.productId,
          label: r.label,
          fields: restoreFieldChanges(r.changes),
        },
      ];
    case 'product-delete':
      return [{ ...base, action: 'delete', entity: 'product', id: r.productId, label: r.label, fields: [] }];
  }
}

/** The writes of a rollback: an item, customer or product restored, or a created product deleted. */
export function rollbackPlanChanges(restores: readonly RestoreEntry[]): PlanChange[] {
  return restores.flatMap(restoreEntryChanges);
}

/** The templates a templates plan creates. */
export function templatePlanChanges(plan: Pick<TemplatePlan, 'entries'>): PlanChange[] {
  return plan.entries
    .filter((e) => e.action === 'create')
    .map((e) => ({
      action: 'create',
      entity: 'template',
      id: null,
      label: e.name,
      sheet: e.sheet,
      row: e.rowNumber,
      fields: Object.entries(e.body).map(([field, after]) => ({ field, before: null, after })),
    }));
}

/** The messages a messages plan sends: one per recipient row, with its parameters. */
export function messagePlanChanges(plan: Pick<MessagePlan, 'sends' | 'template'>): PlanChange[] {
  return plan.sends.map((s) => ({
    action: 'send',
    entity: 'message',
    id: s.customerId ?? null,
    label: s.to,
    sheet: s.sheet,
    row: s.rowNumber,
    fields: [
      { field: 'template', before: null, after: plan.template.name },
      ...Object.entries(s.parameters).map(([field, after]) => ({ field, before: null, after })),
    ],
  }));
}

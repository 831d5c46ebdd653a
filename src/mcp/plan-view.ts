import type { RunDirectory } from '../apply/run-directory.js';
import { StockUnknownSchema } from '../jobs/products/stock-unknown-schema.js';
import { readPlanFile } from '../jobs/runner/plan-file.js';
import { stockUnknownRefusal } from '../plan/stock-unknown.js';
import { z } from 'zod';

/**
 * One planned change as data: what it does to which entity, from which sheet row, and each field's
 * value before and after. Values are the sheet's or the store's, never instructions.
 */
export interface ChangeRow {
  /** Position in the plan's list of changes (0-based): `show_plan` pages by it. */
  index: number;
  action: string;
  entity: string;
  id: string | null;
  label: string;
  row: number | null;
  fields: { field: string; before: unknown; after: unknown }[];
}

/** A price change the CLI refuses unless allowed (×10 or more, or over 10× the catalog median). */
export interface PriceJumpView {
  label: string;
  row: number | null;
  before: number | null;
  after: number;
  reason: string;
}

/** What a run's plan.json says, for the tools: counts, writes, guards, changes. */
export interface PlanView {
  kind: string;
  /** Entities the plan writes (what `--max-changes` counts). */
  writes: number;
  /** Products the plan deletes. */
  deletes: number;
  priceJumps: PriceJumpView[];
  /** Why the planner refused the plan (it is never applied). */
  refusal: string | null;
  /** Products: stock the sheet tracks without giving it, and no `stock_unknown` mode chosen. */
  stockUnknown: string | null;
  changes: ChangeRow[];
}

const Loose = z.looseObject({});
const FieldChanges = z.array(z.looseObject({ path: z.string(), before: z.unknown(), after: z.unknown() }));
const Row = z.looseObject({ rowNumber: z.number() });

const StockPlanView = z.looseObject({
  refusal: z.string().optional(),
  plan: z.looseObject({
    changes: z.array(
      z.looseObject({
        itemId: z.string(),
        sku: z.string().nullable(),
        name: z.string(),
        rowNumber: z.number(),
        before: z.number(),
        after: z.number(),
      }),
    ),
  }),
});

const ProductPlanView = z.looseObject({
  refusal: z.string().optional(),
  priceJumps: z
    .array(
      z.looseObject({
        label: z.string(),
        rowNumber: z.number().optional(),
        before: z.number().nullable(),
        after: z.number(),
        reason: z.string(),
      }),
    )
    .optional(),
  plan: z.looseObject({
    stockUnknown: StockUnknownSchema.optional(),
    entries: z.array(
      z.looseObject({
        action: z.string(),
        productId: z.string().nullable(),
        label: z.string(),
        changes: FieldChanges,
        rows: z.array(Row),
      }),
    ),
  }),
});

const CustomerPlanView = z.looseObject({
  plan: z.looseObject({
    entries: z.array(
      z.looseObject({
        action: z.string(),
        rowNumber: z.number(),
        customerId: z.string().optional(),
        create: Loose.optional(),
        before: z.looseObject({ name: z.string() }).optional(),
        changes: FieldChanges,
      }),
    ),
  }),
});

const RollbackPlanView = z.looseObject({
  refusal: z.string().optional(),
  restores: z.array(
    z.looseObject({
      type: z.string(),
      productId: z.string().optional(),
      customerId: z.string().optional(),
      label: z.string().optional(),
      changes: FieldChanges.optional(),
      items: z
        .array(
          z.looseObject({
            itemId: z.string(),
            sku: z.string().nullable(),
            restore: z.number(),
            current: z.number(),
          }),
        )
        .optional(),
    }),
  ),
});

const PRODUCT_WRITES = new Set(['create', 'update', 'hide', 'delete']);

function fields(changes: z.infer<typeof FieldChanges>): ChangeRow['fields'] {
  return changes.map((c) => ({ field: c.path, before: c.before, after: c.after }));
}

/** Reads a run's plan as the tools show it (the plan file is validated as its kind writes it). */
export function readPlanView(run: RunDirectory): PlanView {
  const kind = run.meta.kind;
  const base = {
    kind,
    deletes: 0,
    priceJumps: [] as PriceJumpView[],
    refusal: null as string | null,
    stockUnknown: null as string | null,
  };
  if (kind === 'stock') {
    const file = readPlanFile(run, StockPlanView);
    const changes = file.plan.changes.map((c, index) => ({
      index,
      action: 'update',
      entity: 'inventory_item',
      id: c.itemId,
      label: c.sku ?? c.name,
      row: c.rowNumber,
      fields: [{ field: 'quantity', before: c.before, after: c.after }],
    }));
    return { ...base, refusal: file.refusal ?? null, writes: changes.length, changes };
  }
  if (kind === 'products') {
    const file = readPlanFile(run, ProductPlanView);
    const entries = file.plan.entries.filter((e) => PRODUCT_WRITES.has(e.action));
    return {
      ...base,
      refusal: file.refusal ?? null,
      stockUnknown: stockUnknownRefusal(file.plan) ?? null,
      writes: entries.length,
      deletes: entries.filter((e) => e.action === 'delete').length,
      priceJumps: (file.priceJumps ?? []).map((j) => ({
        label: j.label,
        row: j.rowNumber ?? null,
        before: j.before,
        after: j.after,
        reason: j.reason,
      })),
      changes: entries.map((e, index) => ({
        index,
        action: e.action,
        entity: 'product',
        id: e.productId,
        label: e.label,
        row: e.rows[0]?.rowNumber ?? null,
        fields: fields(e.changes),
      })),
    };
  }
  if (kind === 'customers') {
    const file = readPlanFile(run, CustomerPlanView);
    const entries = file.plan.entries.filter((e) => e.action === 'create' || e.action === 'update');
    return {
      ...base,
      writes: entries.length,
      changes: entries.map((e, index) => ({
        index,
        action: e.action,
        entity: 'customer',
        id: e.customerId ?? null,
        label: e.before?.name ?? String(e.create?.['name'] ?? ''),
        row: e.rowNumber,
        fields: fields(e.changes),
      })),
    };
  }
  if (kind === 'rollback') {
    const file = readPlanFile(run, RollbackPlanView);
    const changes: ChangeRow[] = [];
    for (const r of file.restores) {
      if (r.items) {
        for (const i of r.items)
          changes.push({
            index: changes.length,
            action: 'restore',
            entity: 'inventory_item',
            id: i.itemId,
            label: i.sku ?? i.itemId,
            row: null,
            fields: [{ field: 'quantity', before: i.current, after: i.restore }],
          });
      } else {
        changes.push({
          index: changes.length,
          action: r.type === 'product-delete' ? 'delete' : 'restore',
          entity: r.type === 'customer' ? 'customer' : 'product',
          id: r.productId ?? r.customerId ?? null,
          label: r.label ?? '',
          row: null,
          fields: fields(r.changes ?? []),
        });
      }
    }
    return {
      ...base,
      refusal: file.refusal ?? null,
      writes: changes.length,
      deletes: changes.filter((c) => c.action === 'delete').length,
      changes,
    };
  }
  return { ...base, writes: 0, changes: [] };
}

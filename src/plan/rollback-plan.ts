import type {
  Customer,
  CustomerCreate,
  CustomerUpdate,
  Product,
  ProductCreate,
  ProductUpdate,
} from '../schema/index.js';
import { prependAll } from './append-all.js';
import type { DriftedEntity } from './drifted-entity.js';
import { productDriftFields, productRestore, type RestoreChange } from './rollback-product.js';

/** An entity's before-state as a run's backup keeps it (apply/backup.ts BackupEntry). */
export interface BackedUpEntity {
  type: string;
  id: string;
  before: unknown;
}

/** Where a journaled operation stands (apply/journal.ts OperationState's status). */
export type WriteState = 'not_started' | 'done' | 'failed' | 'unknown';

/**
 * The rollback plan: from a run's backup (the before-state of every entity it touched), what the
 * run wrote (its plan and journal) and the live store, decide per entity: restore it, leave it
 * (already as before, or never written), refuse (it changed after the run wrote it: drift), or
 * report it as not reversible. Pure.
 */

/** One inventory item to set back. */
export interface RollbackStockItem {
  itemId: string;
  sku: string | null;
  /** The quantity before the run: what is written. */
  restore: number;
  /** The live quantity when the rollback was planned. */
  current: number;
}

export type RestoreEntry =
  | { type: 'stock'; key: string; items: RollbackStockItem[] }
  | {
      type: 'customer';
      key: string;
      customerId: string;
      label: string;
      body: CustomerUpdate;
      changes: RestoreChange[];
      /** The live customer when planned (the rollback's own backup). */
      current: Customer;
    }
  | {
      type: 'product';
      key: string;
      productId: string;
      label: string;
      body: ProductUpdate;
      changes: RestoreChange[];
      notes: string[];
      current: Product;
    }
  | { type: 'product-delete'; key: string; productId: string; label: string; current: Product };

/** The reason of a product the run created, kept because the rollback was planned without --delete-created. */
export const CREATED_KEPT = 'created by the run: kept (use --delete-created to delete it)';

/**
 * A plan's `notReversible` in two: the products the run created that the rollback keeps (it can
 * delete them with --delete-created: `kept`, never "cannot be undone"), and what it cannot undo.
 */
export function keptApart<T extends { reason: string }>(
  list: readonly T[],
): { kept: T[]; notReversible: T[] } {
  const kept: T[] = [];
  const notReversible: T[] = [];
  for (const n of list) (n.reason === CREATED_KEPT ? kept : notReversible).push(n);
  return { kept, notReversible };
}

/** Something the run did that the rollback cannot undo (or will not, without a flag). */
export interface NotReversible {
  type: string;
  id: string;
  label: string;
  reason: string;
}

/** An entity the rollback leaves alone because there is nothing of the run's to undo. */
export interface LeftAlone {
  type: string;
  id: string;
  label: string;
  reason: string;
}

/** What one operation of the run did to one entity. */
export interface WriteInfo<B> {
  state: WriteState;
  action: 'create' | 'update' | 'delete';
  /** The body the run sent (fields it wrote). */
  body?: B | undefined;
  /** Id the operation returned (the created entity's id). */
  resultId?: string | undefined;
  /** The entity's updated_at right after the run's write, when the journal kept it. */
  updatedAt?: string | undefined;
}

/** What the run wrote, per entity (keyed like its backup entries). */
export interface SourceWrites {
  /** Inventory items: the quantity the write left (`written`), the planned one, or a definite failure. */
  items: Map<string, { written?: number; planned?: number; failed?: boolean }>;
  customers: Map<string, WriteInfo<CustomerUpdate | CustomerCreate>>;
  products: Map<string, WriteInfo<ProductUpdate | ProductCreate>>;
  /** Done operations no backup covers: templates submitted, messages sent. */
  notReversible: NotReversible[];
}

export interface LiveState {
  products?: Map<string, Product>;
  /** Live inventory items by item id (a `Map`, or the stock plan's live index). */
  items?: { get(itemId: string): { quantity: number; sku: string | null; name: string } | undefined };
  customers?: Map<string, Customer>;
}

export interface RollbackDecisions {
  restores: RestoreEntry[];
  notReversible: NotReversible[];
  drifted: DriftedEntity[];
  /** Already at the before-state, or never written by the run. */
  leftAlone: LeftAlone[];
  counts: Record<string, number>;
}

export interface DecideOptions {
  deleteCreated: boolean;
  /** Inventory items per batch operation (default 100). */
  batchSize?: number;
}

const CUSTOMER_FIELDS = ['name', 'phone', 'email'] as const;

/** Decides what the rollback does with every backup entry. */
export function decideRollback(
  backup: readonly BackedUpEntity[],
  writes: SourceWrites,
  live: LiveState,
  options: DecideOptions,
): RollbackDecisions {
  const restores: RestoreEntry[] = [];
  const notReversible: NotReversible[] = [...writes.notReversible];
  const drifted: DriftedEntity[] = [];
  const leftAlone: LeftAlone[] = [];
  const stock: RollbackStockItem[] = [];

  for (const entry of backup) {
    switch (entry.type) {
      case 'inventory_item': {
        const before = entry.before as { quantity: number; sku?: string | null } | null;
        const sku = before?.sku ?? null;
        const label = sku ?? entry.id;
        const now = live.items?.get(entry.id);
        if (!before || typeof before.quantity !== 'number') {
          notReversible.push({ type: 'inventory_item', id: entry.id, label, reason: 'no saved quantity' });
          break;
        }
        if (!now) {
          notReversible.push({ type: 'inventory_item', id: entry.id, label, reason: 'no longer exists' });
          break;
        }
        if (now.quantity === before.quantity) {
          leftAlone.push({
            type: 'inventory_item',
            id: entry.id,
            label,
            reason: 'already as before the run',
          });
          break;
        }
        const w = writes.items.get(entry.id);
        if (w?.failed) {
          leftAlone.push({
            type: 'inventory_item',
            id: entry.id,
            label,
            reason: `not written by the run (its write failed); now ${now.quantity}, left as is`,
          });
          break;
        }
        const expected = w?.written ?? w?.planned;
        const item = { itemId: entry.id, sku, restore: before.quantity, current: now.quantity };
        if (expected !== undefined && now.quantity !== expected) {
          drifted.push({
            type: 'inventory_item',
            id: entry.id,
            label,
            reason: `quantity is ${now.quantity}, but the run ${w?.written !== undefined ? 'wrote' : 'planned'} ${expected} (changed since; before the run: ${before.quantity})`,
          });
        } else if (expected === undefined) {
          drifted.push({
            type: 'inventory_item',
            id: entry.id,
            label,
            reason: `quantity is ${now.quantity} and the run's journal does not say what it wrote (before the run: ${before.quantity})`,
          });
        }
        stock.push(item);
        break;
      }
      case 'customer': {
        const w = writes.customers.get(entry.id);
        if (entry.before === null) {
          if (w?.state === 'done') {
            notReversible.push({
              type: 'customer',
              id: w.resultId ?? entry.id,
              label: customerLabel(w.body),
              reason: 'created by the run: customers cannot be deleted through the API',
            });
          } else if (w?.state === 'unknown') {
            notReversible.push({
              type: 'customer',
              id: entry.id,
              label: customerLabel(w.body),
              reason:
                'may have been created by the run (outcome unknown): customers cannot be deleted through the API',
            });
          }
          break;
        }
        const before = entry.before as { name: string; phone: string; email: string | null };
        const label = before.name;
        const now = live.customers?.get(entry.id);
        if (!now) {
          notReversible.push({ type: 'customer', id: entry.id, label, reason: 'no longer exists' });
          break;
        }
        const body: CustomerUpdate = {};
        const changes: RestoreChange[] = [];
        for (const f of CUSTOMER_FIELDS) {
          if ((now[f] ?? null) === (before[f] ?? null)) continue;
          (body as Record<string, unknown>)[f] = before[f] ?? null;
          changes.push({ field: f, now: now[f], restore: before[f] });
        }
        if (changes.length === 0) {
          leftAlone.push({ type: 'customer', id: entry.id, label, reason: 'already as before the run' });
          break;
        }
        if (w && (w.state === 'failed' || w.state === 'not_started')) {
          leftAlone.push({
            type: 'customer',
            id: entry.id,
            label,
            reason: 'not written by the run (its write failed or never ran); left as is',
          });
          break;
        }
        const reason = customerDrift(now, w);
        if (reason) drifted.push({ type: 'customer', id: entry.id, label, reason });
        restores.push({
          type: 'customer',
          key: `customer:${entry.id}`,
          customerId: entry.id,
          label,
          body,
          changes,
          current: now,
        });
        break;
      }
      case 'product': {
        const w = writes.products.get(entry.id);
        if (entry.before === null) {
          // Created by the run (the backup id is the operation key).
          const label = productLabel(w?.body) ?? entry.id;
          if (!w || w.state !== 'done' || w.resultId === undefined) {
            if (w?.state === 'unknown') {
              notReversible.push({
                type: 'product',
                id: entry.id,
                label,
                reason: 'may have been created by the run (outcome unknown); check the store',
              });
            }
            break;
          }
          const now = live.products?.get(w.resultId);
          if (!now) {
            leftAlone.push({
              type: 'product',
              id: w.resultId,
              label,
              reason: 'created by the run, already gone',
            });
            break;
          }
          if (!options.deleteCreated) {
            notReversible.push({
              type: 'product',
              id: w.resultId,
              label: now.name,
              reason: CREATED_KEPT,
            });
            break;
          }
          const fields = w.body ? productDriftFields(w.body, now) : [];
          if (fields.length > 0) {
            drifted.push({
              type: 'product',
              id: w.resultId,
              label: now.name,
              reason: `created by the run and changed since (${fields.join(', ')})`,
            });
          }
          restores.push({
            type: 'product-delete',
            key: `delete:${w.resultId}`,
            productId: w.resultId,
            label: now.name,
            current: now,
          });
          break;
        }
        const before = entry.before as Product;
        const label = before.name;
        const now = live.products?.get(entry.id);
        if (w?.action === 'delete' && (w.state === 'done' || !now)) {
          notReversible.push({
            type: 'product',
            id: entry.id,
            label,
            reason:
              'deleted by the run: a deleted product cannot be restored with its id (its saved state is in backup.json; import it again to recreate it under a new id)',
          });
          break;
        }
        if (!now) {
          notReversible.push({ type: 'product', id: entry.id, label, reason: 'no longer exists' });
          break;
        }
        if (w && (w.state === 'failed' || w.state === 'not_started')) {
          leftAlone.push({
            type: 'product',
            id: entry.id,
            label,
            reason: 'not written by the run (its write failed or never ran); left as is',
          });
          break;
        }
        const fields = w?.body ? Object.keys(w.body) : undefined;
        const variantStock =
          fields === undefined ||
          ((w?.body as ProductUpdate | undefined)?.variants ?? []).some(
            (v) => v.inventory_quantity !== undefined,
          );
        const restore = productRestore(before, now, {
          fields,
          deleteCreated: options.deleteCreated,
          variantStock,
        });
        if (restore.changes.length === 0) {
          leftAlone.push({ type: 'product', id: entry.id, label, reason: 'already as before the run' });
          if (restore.notes.length > 0)
            notReversible.push(
              ...restore.notes.map((reason) => ({ type: 'product', id: entry.id, label, reason })),
            );
          break;
        }
        const reason = productDrift(now, w);
        if (reason) drifted.push({ type: 'product', id: entry.id, label, reason });
        restores.push({
          type: 'product',
          key: `product:${entry.id}`,
          productId: entry.id,
          label,
          body: restore.body,
          changes: restore.changes,
          notes: restore.notes,
          current: now,
        });
        break;
      }
      default:
        notReversible.push({
          type: entry.type,
          id: entry.id,
          label: entry.id,
          reason: `entities of type ${entry.type} cannot be rolled back`,
        });
    }
  }

  const size = Math.max(1, options.batchSize ?? 100);
  const stockEntries: RestoreEntry[] = [];
  for (let i = 0, n = 0; i < stock.length; i += size, n++) {
    stockEntries.push({ type: 'stock', key: `stock:${n}`, items: stock.slice(i, i + size) });
  }
  prependAll(restores, stockEntries);
  return {
    restores,
    notReversible,
    drifted,
    leftAlone,
    counts: {
      stock_items: stock.length,
      customers: restores.filter((r) => r.type === 'customer').length,
      products: restores.filter((r) => r.type === 'product').length,
      products_deleted: restores.filter((r) => r.type === 'product-delete').length,
      not_reversible: notReversible.length,
      drifted: drifted.length,
      left_alone: leftAlone.length,
    },
  };
}

function customerLabel(body: CustomerUpdate | CustomerCreate | undefined): string {
  return body?.name ?? body?.phone ?? '(customer)';
}

function productLabel(body: ProductUpdate | ProductCreate | undefined): string | undefined {
  return body?.reference_id ?? body?.sku ?? body?.name;
}

/** Why a customer the run updated no longer shows the run's write (undefined: it does). */
function customerDrift(
  now: Customer,
  w: WriteInfo<CustomerUpdate | CustomerCreate> | undefined,
): string | undefined {
  if (w?.state === 'done' && w.updatedAt !== undefined) {
    return now.updated_at === w.updatedAt
      ? undefined
      : `changed after the run wrote it (updated_at ${w.updatedAt} → ${now.updated_at})`;
  }
  if (w?.body) {
    const changed = Object.entries(w.body).filter(
      ([f, v]) => v !== undefined && (now[f as keyof Customer] ?? null) !== (v ?? null),
    );
    if (changed.length > 0) return `changed after the run wrote it (${changed.map(([f]) => f).join(', ')})`;
    return undefined;
  }
  return "the run's journal does not say what it wrote";
}

/**
 * Why a product the run updated no longer shows the run's write. The fields the run sent are
 * compared (a product's updated_at also moves with every sale of its stock, so it is only the
 * fallback when the body is not known).
 */
function productDrift(
  now: Product,
  w: WriteInfo<ProductUpdate | ProductCreate> | undefined,
): string | undefined {
  if (w?.body) {
    const fields = productDriftFields(w.body, now);
    return fields.length > 0 ? `changed after the run wrote it (${fields.join(', ')})` : undefined;
  }
  if (w?.state === 'done' && w.updatedAt !== undefined) {
    return now.updated_at === w.updatedAt
      ? undefined
      : `changed after the run wrote it (updated_at ${w.updatedAt} → ${now.updated_at})`;
  }
  return "the run's journal does not say what it wrote";
}

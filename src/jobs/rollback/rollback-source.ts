import { readBackup, type BackupEntry } from '../../apply/backup.js';
import { readJournal, stateOf, type JournalSnapshot } from '../../apply/journal.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { ProductUpdate } from '../../schema/index.js';
import { CustomerPlanFileSchema } from '../customers/customer-plan-file.js';
import { MessagePlanFileSchema } from '../messages/message-plan-file.js';
import { readProductPlan } from '../products/product-plan-file.js';
import { readPlanFile } from '../runner/plan-file.js';
import { TemplatePlanFileSchema } from '../templates/template-plan-file.js';
import { readRollbackPlan } from './rollback-plan-file.js';
import type { NotReversible, SourceWrites, WriteInfo } from '../../plan/rollback-plan.js';
import { StockPlanFileSchema } from '../stock/stock-plan-file.js';
import { appendAll } from '../../plan/append-all.js';

/**
 * Reads what a finished (or interrupted) run touched and wrote: its backup (backup.ndjson when
 * present, a superset of backup.json), and from its plan and journal, per entity, the operation's
 * state, the body it sent and what the service answered.
 */
export interface RollbackSource {
  backup: BackupEntry[];
  writes: SourceWrites;
}

/** Run kinds a rollback knows. */
export const ROLLBACK_SOURCE_KINDS = ['stock', 'customers', 'products', 'templates', 'messages', 'rollback'];

export function readRollbackSource(run: RunDirectory): RollbackSource {
  const backup = readBackup(run.file('backup'), run.file('backupLog'));
  const journal = readJournal(run.file('journal'));
  const writes: SourceWrites = {
    items: new Map(),
    customers: new Map(),
    products: new Map(),
    notReversible: [],
  };
  // Quantities any operation reported writing (stock batches, per-item PATCHes, rollbacks).
  for (const state of journal.states.values()) {
    if (state.status !== 'done') continue;
    const r = state.result as { applied?: unknown; failed?: unknown } | undefined;
    if (r && typeof r.applied === 'object' && r.applied !== null) {
      for (const [id, q] of Object.entries(r.applied as Record<string, unknown>)) {
        if (typeof q === 'number') writes.items.set(id, { ...writes.items.get(id), written: q });
      }
    }
    if (r && typeof r.failed === 'object' && r.failed !== null) {
      for (const id of Object.keys(r.failed as Record<string, unknown>)) {
        writes.items.set(id, { ...writes.items.get(id), failed: true });
      }
    }
  }
  // The source's plan, validated with its kind's schema (a damaged plan is an error, not a guess).
  switch (run.meta.kind) {
    case 'stock':
      for (const c of readPlanFile(run, StockPlanFileSchema).plan.changes) {
        writes.items.set(c.itemId, { ...writes.items.get(c.itemId), planned: c.after });
      }
      break;
    case 'customers':
      for (const e of readPlanFile(run, CustomerPlanFileSchema).plan.entries) {
        if (e.action === 'create' && e.create) {
          writes.customers.set(e.key, info(journal, e.key, 'create', e.create));
        } else if (e.action === 'update' && e.update && e.customerId !== undefined) {
          writes.customers.set(e.customerId, info(journal, e.key, 'update', e.update));
        }
      }
      break;
    case 'products':
      for (const e of readProductPlan(run).plan.entries) {
        if (e.action === 'create') writes.products.set(e.key, info(journal, e.key, 'create', e.body));
        else if ((e.action === 'update' || e.action === 'hide') && e.productId !== null) {
          writes.products.set(e.productId, info(journal, e.key, 'update', e.body));
        } else if (e.action === 'delete' && e.productId !== null) {
          writes.products.set(e.productId, info<ProductUpdate>(journal, e.key, 'delete', undefined));
        }
      }
      break;
    case 'rollback':
      for (const r of readRollbackPlan(run).restores) {
        if (r.type === 'stock') {
          for (const i of r.items)
            writes.items.set(i.itemId, { ...writes.items.get(i.itemId), planned: i.restore });
        } else if (r.type === 'customer') {
          writes.customers.set(r.customerId, info(journal, r.key, 'update', r.body));
        } else if (r.type === 'product') {
          writes.products.set(r.productId, info(journal, r.key, 'update', r.body));
        } else {
          writes.products.set(r.productId, info<ProductUpdate>(journal, r.key, 'delete', undefined));
        }
      }
      break;
    case 'templates':
      appendAll(
        writes.notReversible,
        doneOps(journal, readPlanFile(run, TemplatePlanFileSchema).plan.entries, 'template'),
      );
      break;
    case 'messages':
      appendAll(
        writes.notReversible,
        doneOps(journal, readPlanFile(run, MessagePlanFileSchema).plan.sends, 'message'),
      );
      break;
    default:
      break;
  }
  return { backup, writes };
}

function info<B>(
  journal: JournalSnapshot,
  key: string,
  action: WriteInfo<B>['action'],
  body: B | undefined,
): WriteInfo<B> {
  const state = stateOf(journal, key);
  const out: WriteInfo<B> = { state: state.status, action, body };
  if (state.status === 'done') {
    const r = state.result as { id?: unknown; updatedAt?: unknown } | undefined;
    if (typeof r?.id === 'string') out.resultId = r.id;
    if (typeof r?.updatedAt === 'string') out.updatedAt = r.updatedAt;
  }
  return out;
}

/** Templates submitted / messages sent by the run: reported, they cannot be undone. */
function doneOps(
  journal: JournalSnapshot,
  planned: readonly ({ key: string; name: string } | { key: string; to: string })[],
  type: 'template' | 'message',
): NotReversible[] {
  const labels = new Map(planned.map((e) => [e.key, 'name' in e ? e.name : e.to]));
  const out: NotReversible[] = [];
  for (const [key, state] of journal.states) {
    if (state.status !== 'done' && state.status !== 'unknown') continue;
    const r = state.status === 'done' ? (state.result as { id?: unknown } | undefined) : undefined;
    const id = typeof r?.id === 'string' ? r.id : key;
    const maybe = state.status === 'unknown' ? ' (outcome unknown)' : '';
    out.push({
      type,
      id,
      label: labels.get(key) ?? key,
      reason:
        type === 'template'
          ? `submitted by the run${maybe}: templates cannot be deleted through the API`
          : `sent by the run${maybe}: messages cannot be unsent`,
    });
  }
  return out;
}

import { writeReport } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { formatMoney } from '../../sheets/money.js';
import type { RestoreEntry } from '../../plan/rollback-plan.js';
import type { RestoreChange } from '../../plan/rollback-product.js';
import type { RollbackPlanFile } from './rollback-plan-file.js';

/** What the report shows of an apply. */
interface AppliedRollback {
  restored: number;
  failed: number;
  requests: number;
  failures: { type: string; id: string; code: string; message: string }[];
}

const MONEY_FIELDS = new Set(['price', 'original_price', 'cost']);

/**
 * One value of a restore as people read it, every price in currency units when `decimals` is
 * given: a product's price field (minor units in the plan) and the price inside a variant's
 * summary (`variants[SKU]`: "NAME PRICE, stock N", minor units too) alike. The terminal, report.md
 * and the review pages use this one function, so a rollback never mixes `1250` with `12.50`.
 */
export function formatRestoreValue(field: string, value: unknown, decimals?: number): string {
  if (decimals !== undefined && MONEY_FIELDS.has(field) && typeof value === 'number')
    return formatMoney(value, decimals);
  if (decimals !== undefined && field.startsWith('variants[') && typeof value === 'string') {
    const m = /^(.*?) ?(-?\d+)(, stock -?\d+)?$/.exec(value);
    if (m !== null)
      return `${m[1] === '' ? '' : `${m[1]} `}${formatMoney(Number(m[2]), decimals)}${m[3] ?? ''}`;
  }
  return show(value);
}

/** A restore as people read it (money in currency units when `decimals` is given). */
export function describeRestore(r: RestoreEntry, decimals?: number): string[] {
  const field = (c: RestoreChange) =>
    `${c.field}: ${formatRestoreValue(c.field, c.now, decimals)} → ${formatRestoreValue(c.field, c.restore, decimals)}`;
  switch (r.type) {
    case 'stock':
      return r.items.map((i) => `stock ${i.sku ?? i.itemId}: ${i.current} → ${i.restore}`);
    case 'customer':
      return [`customer ${r.customerId} (${r.label}): ${r.changes.map(field).join('; ')}`];
    case 'product':
      return [
        `product ${r.productId} (${r.label}): ${r.changes.map(field).join('; ')}`,
        ...r.notes.map((n) => `  note: ${n}`),
      ];
    case 'product-delete':
      return [`product ${r.productId} (${r.label}): delete (created by the run)`];
  }
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(blank)';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join('|') || '(none)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Every restore line (stock batches expanded), for the report and the CLI. */
export function restoreLines(file: RollbackPlanFile): string[] {
  return file.restores.flatMap((r) => describeRestore(r, file.store.decimals));
}

/** report.html / report.md of a rollback run: what it restores, and after an apply what it did. */
export function writeRollbackReport(
  run: RunDirectory,
  file: RollbackPlanFile,
  applied?: AppliedRollback,
): void {
  const lines = restoreLines(file);
  writeReport(run.file('report'), {
    title: `Rollback of run ${file.source.id}`,
    runId: run.id,
    facts: [
      ['Source run', `${file.source.id} (${file.source.kind}, ${file.source.status})`],
      ['Store', `${file.store.name} (${file.store.id})`],
      ['Target', run.meta.target],
      ['Products created by the run', file.options.deleteCreated ? 'deleted (--delete-created)' : 'kept'],
      ['Status', run.refresh().status],
      ...(file.refusal ? ([['Refused', file.refusal]] as const) : []),
    ],
    counts: [
      ['stock items to restore', file.counts['stock_items'] ?? 0],
      ['customers to restore', file.counts['customers'] ?? 0],
      ['products to restore', file.counts['products'] ?? 0],
      ['products to delete', file.counts['products_deleted'] ?? 0],
      ['not reversible', file.notReversible.length],
      ['changed since the run (drift)', file.drifted.length],
      ['left alone', file.leftAlone.length],
      ...(applied
        ? ([
            ['restored', applied.restored],
            ['failed', applied.failed],
            ['write requests', applied.requests],
          ] as const)
        : []),
    ],
    changes: lines,
    issues: [
      ...file.drifted.map((d) => `drift: ${d.type} ${d.id} (${d.label}): ${d.reason}`),
      ...file.notReversible.map((n) => `not reversible: ${n.type} ${n.id} (${n.label}): ${n.reason}`),
      ...(applied?.failures ?? []).map((f) => `failed: ${f.type} ${f.id}: ${f.code}: ${f.message}`),
    ],
  });
}

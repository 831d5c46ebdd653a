import { writeReport } from '../../apply/report.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { CREATED_KEPT, keptApart, type RestoreEntry } from '../../plan/rollback-plan.js';
import { restoreEntryChanges, restoreFieldChanges, type PlanFieldChange } from '../../plan/plan-changes.js';
import type { ReviewBody, ReviewCard, ReviewTable } from '../../report/review-page.js';
import { formatMoney } from '../../sheets/money.js';
import type { RollbackPlanFile } from './rollback-plan-file.js';

/** What the report shows of an apply. */
export interface AppliedRollback {
  status: 'completed' | 'interrupted' | 'aborted';
  restored: number;
  /** Failed or of unknown outcome (not the entities it never reached). */
  failed: number;
  /** Not tried: the rollback stopped first (also in `failures`, with the code not_run). */
  notReached: number;
  requests: number;
  failures: { type: string; id: string; code: string; message: string }[];
}

const MONEY_FIELDS = new Set(['price', 'original_price', 'cost']);

function isVariantSummary(v: unknown): v is { name: string; price: number; stock?: number } {
  return typeof v === 'object' && v !== null && 'name' in v && 'price' in v && typeof v.price === 'number';
}

/**
 * One value of a restore as people read it, the same in the terminal, report.md and report.html:
 * money (a product's `price`, `original_price`, `cost`, and a variant's price) in the store's
 * currency units when `decimals` is given (plans hold minor units: 1250 is 12.50), a variant as
 * `Small · 12.50 · stock 3`, lists joined, nothing as `(blank)`; with `currency`, amounts carry it
 * (`12.50 MYR`, on the review page).
 */
export function formatRestoreValue(
  field: string,
  value: unknown,
  decimals?: number,
  currency?: string,
): string {
  const money = (n: number) =>
    decimals === undefined ? String(n) : `${formatMoney(n, decimals)}${currency ? ` ${currency}` : ''}`;
  if (isVariantSummary(value)) {
    const stock = typeof value.stock === 'number' ? ` · stock ${value.stock}` : '';
    return `${value.name} · ${money(value.price)}${stock}`;
  }
  if (MONEY_FIELDS.has(field) && typeof value === 'number') return money(value);
  // Plans made before variant summaries were objects hold "NAME PRICE, stock N" (minor units).
  if (decimals !== undefined && field.startsWith('variants[') && typeof value === 'string') {
    const m = /^(.*?) ?(-?\d+)(, stock -?\d+)?$/.exec(value);
    if (m !== null) return `${m[1] === '' ? '' : `${m[1]} `}${money(Number(m[2]))}${m[3] ?? ''}`;
  }
  return show(value);
}

/**
 * A restore as people read it (money in currency units when `decimals` is given), read as the MCP
 * tools read it (plan-changes.ts `restoreEntryChanges`): the same entities, fields and values.
 */
export function describeRestore(r: RestoreEntry, decimals?: number): string[] {
  const field = (c: PlanFieldChange) =>
    `${c.field}: ${formatRestoreValue(c.field, c.before, decimals)} → ${formatRestoreValue(c.field, c.after, decimals)}`;
  const changes = restoreEntryChanges(r);
  if (r.type === 'stock')
    return changes.map(
      (c) => `stock ${c.label}: ${c.fields.map((f) => `${show(f.before)} → ${show(f.after)}`).join('; ')}`,
    );
  const lines = changes.map((c) =>
    c.action === 'delete'
      ? `${c.entity} ${c.id ?? ''} (${c.label}): delete (created by the run)`
      : `${c.entity} ${c.id ?? ''} (${c.label}): ${c.fields.map(field).join('; ')}`,
  );
  return r.type === 'product' ? [...lines, ...r.notes.map((n) => `  note: ${n}`)] : lines;
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

/** The command that writes a planned rollback: the source run's, with the flag it was planned with. */
function rollbackCommand(file: RollbackPlanFile): string {
  return `mbulk runs rollback ${file.source.id}${file.options.deleteCreated ? ' --delete-created' : ''} --apply`;
}

/**
 * The review page of a rollback: stock as one table (SKU, now, after the rollback, delta), every
 * other entity a card of field, now → after the rollback (money in currency units), products the
 * run created and the rollback keeps as `kept` (with the flag that deletes them), what cannot be
 * undone, drift, failures; the command that writes it (or continues it).
 */
export function rollbackReview(
  file: RollbackPlanFile,
  run: Pick<RunDirectory, 'id' | 'meta'>,
  applied?: AppliedRollback,
): ReviewBody {
  const decimals = file.store.decimals;
  const currency = file.store.currency;
  const value = (c: PlanFieldChange, v: unknown) => formatRestoreValue(c.field, v, decimals, currency);
  // Every entity the apply did not restore is in `failures`: `not_run` ones were not reached.
  const failures = new Map(
    (applied?.failures ?? []).map((f) => [
      `${f.type}\0${f.id}`,
      f.code === 'not_run' ? 'pending (continue the rollback)' : `failed: ${f.code}: ${f.message}`,
    ]),
  );
  const outcome = (type: string, id: string): string | undefined =>
    applied === undefined ? undefined : (failures.get(`${type}\0${id}`) ?? 'done');
  const rows: (string | number)[][] = [];
  const cards: ReviewCard[] = [];
  for (const r of file.restores) {
    if (r.type === 'stock') {
      for (const i of r.items) {
        const row = [i.sku ?? i.itemId, i.current, i.restore, i.restore - i.current];
        const done = outcome('inventory_item', i.itemId);
        rows.push(done === undefined ? row : [...row, done]);
      }
      continue;
    }
    const id = r.type === 'customer' ? r.customerId : r.productId;
    const card: ReviewCard =
      r.type === 'product-delete'
        ? {
            action: 'delete',
            name: r.label,
            key: id,
            notes: ['created by the run: deleted (--delete-created)'],
          }
        : {
            action: 'restore',
            name: r.label,
            key: id,
            rows: restoreFieldChanges(r.changes).map((c) => ({
              cells: [c.field, value(c, c.before), value(c, c.after)],
            })),
            ...(r.type === 'product' && r.notes.length > 0 ? { notes: [...r.notes] } : {}),
          };
    const done = outcome(r.type === 'customer' ? 'customer' : 'product', id);
    if (done !== undefined) card.outcome = done;
    cards.push(card);
  }
  for (const n of file.notReversible) {
    cards.push(
      n.reason === CREATED_KEPT
        ? {
            action: 'kept',
            name: n.label,
            key: n.id,
            notes: [
              `created by the run: the rollback keeps it. To delete it too: mbulk runs rollback ${file.source.id} --delete-created --apply`,
            ],
          }
        : { action: 'not-reversible', name: n.label, key: n.id, notes: [`${n.type}: ${n.reason}`] },
    );
  }
  for (const d of file.drifted)
    cards.push({
      action: 'drift',
      name: d.label,
      key: d.id,
      notes: [`warning: ${d.type} changed since the run: ${d.reason}`],
    });
  const table: ReviewTable | undefined =
    rows.length > 0
      ? {
          columns: [
            { label: 'SKU' },
            { label: 'Now', role: 'before' },
            { label: 'After the rollback', role: 'after' },
            { label: 'Delta', role: 'delta' },
            ...(applied ? [{ label: 'Outcome', role: 'outcome' as const }] : []),
          ],
          rows,
          totals: [
            ['items up', rows.filter((r) => (r[3] as number) > 0).length],
            ['items down', rows.filter((r) => (r[3] as number) < 0).length],
            ['units added', rows.reduce((n, r) => n + Math.max(0, r[3] as number), 0)],
            ['units removed', rows.reduce((n, r) => n - Math.min(0, r[3] as number), 0)],
          ],
        }
      : undefined;
  const planned = run.meta.status === 'planned';
  const body: ReviewBody = {
    // The only refusal of a rollback plan is drift: --force restores those entities anyway.
    refusals: file.refusal
      ? [
          {
            message: file.refusal,
            fix: `Nothing is written. Check the entities marked drift below; to overwrite them anyway: mbulk runs rollback ${file.source.id}${file.options.deleteCreated ? ' --delete-created' : ''} --force --apply`,
          },
        ]
      : [],
    columns: [
      { label: 'Field' },
      { label: 'Now', role: 'before' },
      { label: 'After the rollback', role: 'after' },
    ],
    cards,
    ...(table ? { table } : {}),
    invalid: [],
    counts: applied
      ? [
          ['restored', applied.restored],
          ['failed', applied.failed],
          ['not reached (pending)', applied.notReached],
        ]
      : plannedCounts(file).filter(([, n]) => n > 0),
  };
  if (planned && !file.refusal && file.restores.length > 0) body.applyCommand = rollbackCommand(file);
  if (applied && applied.status !== 'completed') body.resumeCommand = `mbulk runs rollback ${run.id} --apply`;
  return body;
}

/** A rollback plan's counts (the page shows those above 0). */
function plannedCounts(file: RollbackPlanFile): [string, number][] {
  const { kept, notReversible } = keptApart(file.notReversible);
  return [
    ['stock items to restore', file.counts['stock_items'] ?? 0],
    ['customers to restore', file.counts['customers'] ?? 0],
    ['products to restore', file.counts['products'] ?? 0],
    ['products to delete', file.counts['products_deleted'] ?? 0],
    ['created products kept', kept.length],
    ['not reversible', notReversible.length],
    ['changed since the run (drift)', file.drifted.length],
  ];
}

/** report.html / report.md of a rollback run: what it restores, and after an apply what it did. */
export function writeRollbackReport(
  run: RunDirectory,
  file: RollbackPlanFile,
  applied?: AppliedRollback,
): void {
  const lines = restoreLines(file);
  const { kept, notReversible } = keptApart(file.notReversible);
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
      ...plannedCounts(file),
      ['left alone', file.leftAlone.length],
      ...(applied
        ? ([
            ['restored', applied.restored],
            ['failed', applied.failed],
            ['not reached', applied.notReached],
            ['write requests', applied.requests],
          ] as const)
        : []),
    ],
    changes: lines,
    issues: [
      ...file.drifted.map((d) => `drift: ${d.type} ${d.id} (${d.label}): ${d.reason}`),
      ...kept.map(
        (n) =>
          `kept: ${n.type} ${n.id} (${n.label}): created by the run; to delete it too: mbulk runs rollback ${file.source.id} --delete-created --apply`,
      ),
      ...notReversible.map((n) => `not reversible: ${n.type} ${n.id} (${n.label}): ${n.reason}`),
      ...(applied?.failures ?? []).map((f) =>
        f.code === 'not_run'
          ? `not reached: ${f.type} ${f.id}: the rollback stopped first; continue it: mbulk runs rollback ${run.id} --apply`
          : `failed: ${f.type} ${f.id}: ${f.code}: ${f.message}`,
      ),
    ],
    review: rollbackReview(file, run, applied),
  });
}

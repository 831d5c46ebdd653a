import { resolve } from 'node:path';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { ImportArgs } from './import.js';
import type { RegisterCommand } from './index.js';

interface StockArgs extends ImportArgs {
  'preserve-sales': boolean;
  'batch-size': number;
  'max-changes'?: string | undefined;
}

/** Plans a stock sheet and, with --apply, writes it: the nightly ERP upload. */
export async function importStock(args: StockArgs, ctx: CommandContext): Promise<number> {
  const { resolveTarget } = await import('../target.js');
  const { planStockImport, applyStockRun, describeStockChange, stockCounts } =
    await import('../../jobs/stock-import.js');
  const { withProgress } = await import('../progress.js');
  const { confirmApply } = await import('../confirm.js');
  const { printIssues, formatCounts, applyExitCode } = await import('../run-summary.js');
  const { CliError } = await import('../cli-error.js');
  if (!Number.isInteger(args['batch-size']) || args['batch-size'] < 1) {
    throw new CliError('--batch-size must be a whole number >= 1', ExitCode.Usage);
  }
  const out = ctx.out;
  const target = await resolveTarget(args, ctx);
  try {
    const file = resolve(ctx.cwd, args.file);
    const runsRoot = resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs');
    const planned = await withProgress(out, 'Plan stock', (report) =>
      planStockImport({
        client: target.client,
        file,
        runsRoot,
        target: target.describe,
        read: args.sheet ? { sheet: args.sheet } : {},
        preserveSales: args['preserve-sales'],
        batchSize: args['batch-size'],
        maxChanges: args['max-changes'],
        onProgress: report,
        onWarning: (m) => out.warn(`warning: ${m}`),
        signal: ctx.signal,
      }),
    );
    const { plan } = planned.file;
    const counts = stockCounts(plan);
    out.line(`Run ${planned.run.id} · store ${planned.store.name} (${planned.store.id})`);
    out.line(`Plan: ${formatCounts(counts)}`);
    for (const c of plan.changes.slice(0, 10)) out.line(`  ${describeStockChange(c)}`);
    if (plan.changes.length > 10)
      out.line(`  … and ${plan.changes.length - 10} more in ${planned.run.file('report')}`);
    for (const s of plan.skipped.slice(0, 10)) out.line(`  skipped row ${s.rowNumber}: ${s.reason}`);
    printIssues(out, plan.issues);
    const invalid = counts['invalid'] ?? 0;
    const base = { runId: planned.run.id, runDir: planned.run.dir, target: target.describe, counts };

    if (planned.refusal) {
      out.warn(`mbulk: refused: ${planned.refusal}`);
      out.result({ ok: false, refused: planned.refusal, applied: false, ...base });
      return ExitCode.Refused;
    }
    if (!args.apply) {
      out.line(
        plan.changes.length > 0
          ? `Dry run: nothing was written. To write: mbulk import stock ${args.file} --apply (or mbulk apply ${planned.run.id})`
          : 'Nothing to write.',
      );
      out.result({ ok: invalid === 0, applied: false, ...base, failedRows: invalidRows(plan.issues) });
      return invalid > 0 ? ExitCode.RowsFailed : ExitCode.Ok;
    }
    if (plan.changes.length > 0) {
      await confirmApply(
        out,
        `Write ${plan.changes.length} stock changes to ${planned.store.name}?`,
        args.yes,
      );
    }
    const applied = await withProgress(out, 'Apply stock', (report) =>
      applyStockRun(planned.run, {
        client: target.client,
        concurrency: args.concurrency,
        onProgress: report,
        signal: ctx.signal,
      }),
    );
    out.line(
      `Applied: ${applied.applied} updated · ${applied.failed} failed · ${invalid} invalid rows · ${applied.requests} write requests (${applied.mode})`,
    );
    out.line(`Results: ${planned.run.file('results')}`);
    if (applied.failedRows.length > 0)
      out.line(`Failed rows to fix and re-import: ${planned.run.file('failed')}`);
    if (applied.status !== 'completed') {
      out.warn(`mbulk: the run was ${applied.status}; continue it with: mbulk runs resume ${planned.run.id}`);
    }
    out.result({
      ok: applied.failedRows.length === 0 && applied.status === 'completed',
      applied: true,
      ...base,
      status: applied.status,
      mode: applied.mode,
      updated: applied.applied,
      failed: applied.failed,
      writeRequests: applied.requests,
      failedRows: applied.failedRows,
      abortedBy: applied.abortedBy,
    });
    return applyExitCode(out, applied, applied.failedRows.length > 0);
  } finally {
    await target.close();
  }
}

function invalidRows(
  issues: readonly { severity: string; sheet: string; rowNumber: number; code: string; message: string }[],
) {
  return issues
    .filter((i) => i.severity === 'error')
    .map((i) => ({ sheet: i.sheet, row: i.rowNumber, code: i.code, message: i.message }));
}

export const registerImportStock: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'stock <file>',
    'Stock sheet (sku or item_id; quantity or delta_quantity): writes only items whose quantity changes, in batches',
    (y) =>
      y
        .positional('file', { type: 'string', demandOption: true, describe: 'CSV or XLSX file' })
        .option('apply', {
          type: 'boolean',
          default: false,
          describe: 'Write the planned changes (default: dry run)',
        })
        .option('yes', {
          type: 'boolean',
          default: false,
          describe: 'Do not ask for confirmation before writing',
        })
        .option('sheet', { type: 'string', describe: 'XLSX: the sheet to read (default: the first)' })
        .option('runs-dir', { type: 'string', describe: 'Where run directories go (default: .mbulk/runs)' })
        .option('preserve-sales', {
          type: 'boolean',
          default: false,
          describe:
            'Send each change as a delta from the quantity seen when planning, keeping sales made meanwhile',
        })
        .option('batch-size', { type: 'number', default: 100, describe: 'Items per batch request' })
        .option('max-changes', {
          type: 'string',
          describe:
            'Refuse (exit 3) a sheet that would change more items: a count (500) or a percentage (10%)',
        })
        .example('$0 import stock stock.csv', 'plan only: what would change')
        .example('$0 import stock stock.csv --apply --yes --json --max-changes 10%', 'nightly, unattended'),
    async (argv) => {
      setExit(await importStock(argv as unknown as StockArgs, ctx));
    },
  );

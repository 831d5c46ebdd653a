import type { CommandContext } from '../command-context.js';
import type { StockApplySummary } from '../../jobs/stock/stock-import.js';
import { ExitCode } from '../exit-code.js';
import type { ImportArgs } from './import.js';
import type { RegisterCommand } from './index.js';
import { importHelpGroups } from './import-help-groups.js';

interface StockArgs extends ImportArgs {
  'preserve-sales': boolean;
  'batch-size': number;
  'max-changes'?: string | undefined;
}

/** Plans a stock sheet and, with --apply, writes it: the nightly ERP upload. */
export async function importStock(args: StockArgs, ctx: CommandContext): Promise<number> {
  const { planStockImport, describeStockChange, stockCounts } =
    await import('../../jobs/stock/stock-import.js');
  const { runImportFlow, invalidRows } = await import('../import-flow.js');
  const { writeThisPlanHint } = await import('../run-hints.js');
  const { printIssues, formatCounts, doneLabel } = await import('../run-summary.js');
  const { CliError } = await import('../cli-error.js');
  if (!Number.isInteger(args['batch-size']) || args['batch-size'] < 1) {
    throw new CliError('--batch-size must be a whole number >= 1', ExitCode.Usage);
  }
  const out = ctx.out;
  let invalid = 0;
  return runImportFlow(args, ctx, {
    kind: 'stock',
    planFlags: ['preserve-sales'],
    planLabel: 'Plan stock',
    plan: (basics) =>
      planStockImport({
        ...basics,
        preserveSales: args['preserve-sales'],
        batchSize: args['batch-size'],
        maxChanges: args['max-changes'],
        allowEmpty: args['allow-empty'],
      }),
    show: (planned, target) => {
      const { plan } = planned.file;
      const counts = stockCounts(plan);
      out.line(`Run ${planned.run.id} · store ${planned.store.name} (${planned.store.id})`);
      out.line(`Plan: ${formatCounts(counts)}`);
      for (const c of plan.changes.slice(0, 10)) out.planLine(`  ${describeStockChange(c)}`);
      if (plan.changes.length > 10)
        out.line(`  … and ${plan.changes.length - 10} more in ${planned.run.file('report')}`);
      for (const s of plan.skipped.slice(0, 10)) out.planLine(`  skipped row ${s.rowNumber}: ${s.reason}`);
      if (plan.skipped.length > 10)
        out.line(`  … and ${plan.skipped.length - 10} more skipped in ${planned.run.file('report')}`);
      printIssues(out, plan.issues);
      invalid = counts['invalid'] ?? 0;
      return {
        base: { runId: planned.run.id, runDir: planned.run.dir, target: target.describe, counts },
        invalid,
        invalidRows: { key: 'failedRows', rows: invalidRows(plan.issues) },
        writes: plan.changes.length,
        dryRun: `Dry run: nothing was written. ${writeThisPlanHint('write', planned.run.id, args, ctx)}`,
        nothing: 'Nothing to write.',
        confirm: `Write ${plan.changes.length} stock changes to ${planned.store.name}?`,
      };
    },
    applyLabel: 'Apply stock',
    summarize: (applied: StockApplySummary) => {
      const notRun = applied.notRun > 0 ? ` · ${applied.notRun} not yet applied (resume the run)` : '';
      const requests = `${applied.requests} write request${applied.requests === 1 ? '' : 's'}`;
      out.line(
        `${doneLabel('Applied', applied.status)}: ${applied.applied} updated · ${applied.failed} failed${notRun} · ${invalid} invalid rows · ${requests} (${applied.mode})`,
      );
      return {
        fields: {
          mode: applied.mode,
          updated: applied.applied,
          failed: applied.failed,
          notRun: applied.notRun,
          writeRequests: applied.requests,
        },
      };
    },
    failedFile: true,
  });
}

export const registerImportStock: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'stock <file>',
    'Stock sheet (sku or item_id; quantity or delta_quantity): writes only items whose quantity changes, in batches',
    (y) =>
      importHelpGroups(
        y
          .positional('file', { type: 'string', demandOption: true, describe: 'CSV or XLSX file' })
          .option('preserve-sales', {
            type: 'boolean',
            default: false,
            describe:
              'Send each change as a delta from the quantity seen when planning, keeping sales made meanwhile',
          })
          .option('batch-size', { type: 'number', default: 100, describe: 'Items per batch request' })
          .option('again', {
            type: 'boolean',
            default: false,
            describe:
              'Apply a sheet of delta_quantity once more although a run already applied it to this store (default: refused, exit 3, naming the run). An unfinished run of the same sheet is continued first',
          })
          .option('max-changes', {
            type: 'string',
            describe:
              'Refuse (exit 3) a sheet that would change more items: a count (500) or a percentage (10%)',
          })
          .example('$0 import stock stock.csv', 'plan only: what would change')
          .example('$0 import stock stock.csv --apply --yes --json --max-changes 10%', 'nightly, unattended'),
        {
          safety: ['max-changes', 'preserve-sales', 'again'],
          format: [],
          more: [['Requests:', ['batch-size']]],
        },
      ),
    async (argv) => {
      setExit(await importStock(argv as unknown as StockArgs, ctx));
    },
  );

import { resolve } from 'node:path';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { ImportArgs } from './import.js';
import type { RegisterCommand } from './index.js';

interface CustomerArgs extends ImportArgs {
  blank: 'keep' | 'clear';
}

/** Plans a customer sheet and, with --apply, writes it. */
export async function importCustomers(args: CustomerArgs, ctx: CommandContext): Promise<number> {
  const { resolveTarget } = await import('../target.js');
  const { planCustomerImport, applyCustomerRun, describeCustomerChange, customerCounts, customerChanges } =
    await import('../../jobs/customer-import.js');
  const { withProgress } = await import('../progress.js');
  const { confirmApply } = await import('../confirm.js');
  const { printIssues, formatCounts, applyExitCode } = await import('../run-summary.js');
  const { CliError } = await import('../cli-error.js');
  if (args.blank !== 'keep' && args.blank !== 'clear') {
    throw new CliError('--blank must be keep or clear', ExitCode.Usage);
  }
  const out = ctx.out;
  const target = await resolveTarget(args, ctx);
  try {
    const file = resolve(ctx.cwd, args.file);
    const runsRoot = resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs');
    const planned = await withProgress(out, 'Plan customers', (report) =>
      planCustomerImport({
        client: target.client,
        file,
        runsRoot,
        target: target.describe,
        read: args.sheet ? { sheet: args.sheet } : {},
        blank: args.blank,
        onProgress: report,
        onWarning: (m) => out.warn(`warning: ${m}`),
        signal: ctx.signal,
      }),
    );
    const { plan } = planned.file;
    const counts = customerCounts(planned.file);
    const changes = customerChanges(plan);
    out.line(
      `Run ${planned.run.id} · store ${planned.store.name} (${planned.store.id}) · national phone numbers read as ${planned.file.store.country}`,
    );
    out.line(`Plan: ${formatCounts(counts)}`);
    for (const c of changes.slice(0, 10)) out.line(`  ${describeCustomerChange(c)}`);
    if (changes.length > 10) out.line(`  … and ${changes.length - 10} more in ${planned.run.file('report')}`);
    printIssues(out, plan.issues);
    const invalid = counts['invalid'] ?? 0;
    const base = { runId: planned.run.id, runDir: planned.run.dir, target: target.describe, counts };

    if (!args.apply) {
      out.line(
        changes.length > 0
          ? `Dry run: nothing was written. To write: mbulk import customers ${args.file} --apply (or mbulk apply ${planned.run.id})`
          : 'Nothing to write.',
      );
      out.result({ ok: invalid === 0, applied: false, ...base, failedRows: invalidRows(plan.issues) });
      return invalid > 0 ? ExitCode.RowsFailed : ExitCode.Ok;
    }
    if (changes.length > 0) {
      await confirmApply(
        out,
        `Write ${counts['create'] ?? 0} new and ${counts['update'] ?? 0} changed customers to ${planned.store.name}?`,
        args.yes,
      );
    }
    const applied = await withProgress(out, 'Apply customers', (report) =>
      applyCustomerRun(planned.run, {
        client: target.client,
        concurrency: args.concurrency,
        onProgress: report,
        signal: ctx.signal,
      }),
    );
    out.line(
      `Applied: ${applied.created} created · ${applied.updated} updated · ${applied.failed} failed · ${invalid} invalid rows · ${applied.requests} write requests`,
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
      created: applied.created,
      updated: applied.updated,
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

export const registerImportCustomers: RegisterCommand = (parser, ctx, setExit) =>
  parser.command(
    'customers <file>',
    'Customer sheet (id, name, phone, email): matches by id, else phone, else email; creates and updates',
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
        .option('blank', {
          choices: ['keep', 'clear'] as const,
          default: 'keep' as const,
          describe: 'A blank email cell: keep the live email (default) or clear it',
        })
        .example('$0 import customers customers.csv', 'plan only: what would change')
        .example('$0 import customers customers.csv --apply --yes --json', 'write, unattended'),
    async (argv) => {
      setExit(await importCustomers(argv as unknown as CustomerArgs, ctx));
    },
  );

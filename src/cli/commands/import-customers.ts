import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { ImportArgs } from './import.js';
import type { RegisterCommand } from './index.js';

interface CustomerArgs extends ImportArgs {
  blank: 'keep' | 'clear';
}

/** Plans a customer sheet and, with --apply, writes it. */
export async function importCustomers(args: CustomerArgs, ctx: CommandContext): Promise<number> {
  const { planCustomerImport, applyCustomerRun, describeCustomerChange, customerCounts, customerChanges } =
    await import('../../jobs/customer-import.js');
  const { runImportFlow, invalidRows } = await import('../import-flow.js');
  const { printIssues, formatCounts } = await import('../run-summary.js');
  const { CliError } = await import('../cli-error.js');
  if (args.blank !== 'keep' && args.blank !== 'clear') {
    throw new CliError('--blank must be keep or clear', ExitCode.Usage);
  }
  const out = ctx.out;
  let invalid = 0;
  return runImportFlow(args, ctx, {
    kind: 'customers',
    planLabel: 'Plan customers',
    plan: (basics) => planCustomerImport({ ...basics, blank: args.blank }),
    show: (planned, target) => {
      const { plan } = planned.file;
      const counts = customerCounts(planned.file);
      const changes = customerChanges(plan);
      out.line(
        `Run ${planned.run.id} · store ${planned.store.name} (${planned.store.id}) · national phone numbers read as ${planned.file.store.country}`,
      );
      out.line(`Plan: ${formatCounts(counts)}`);
      for (const c of changes.slice(0, 10)) out.planLine(`  ${describeCustomerChange(c)}`);
      if (changes.length > 10)
        out.line(`  … and ${changes.length - 10} more in ${planned.run.file('report')}`);
      printIssues(out, plan.issues);
      invalid = counts['invalid'] ?? 0;
      return {
        base: { runId: planned.run.id, runDir: planned.run.dir, target: target.describe, counts },
        invalid,
        invalidRows: { key: 'failedRows', rows: invalidRows(plan.issues) },
        writes: changes.length,
        dryRun: `Dry run: nothing was written. To write: mbulk import customers ${args.file} --apply (or mbulk apply ${planned.run.id})`,
        nothing: 'Nothing to write.',
        confirm: `Write ${counts['create'] ?? 0} new and ${counts['update'] ?? 0} changed customers to ${planned.store.name}?`,
      };
    },
    applyLabel: 'Apply customers',
    apply: (run, basics) => applyCustomerRun(run, basics),
    summarize: (applied) => {
      out.line(
        `Applied: ${applied.created} created · ${applied.updated} updated · ${applied.failed} failed · ${invalid} invalid rows · ${applied.requests} write requests`,
      );
      return {
        fields: {
          created: applied.created,
          updated: applied.updated,
          failed: applied.failed,
          writeRequests: applied.requests,
        },
      };
    },
    failedFile: true,
  });
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

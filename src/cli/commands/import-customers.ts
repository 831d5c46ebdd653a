import type { CommandContext } from '../command-context.js';
import type { CustomerApplySummary } from '../../jobs/customers/customer-import.js';
import { ExitCode } from '../exit-code.js';
import type { ImportArgs } from './import.js';
import type { RegisterCommand } from './index.js';
import { importHelpGroups } from './import-help-groups.js';

interface CustomerArgs extends ImportArgs {
  blank: 'keep' | 'clear';
  from?: 'shopify' | 'mbulk' | undefined;
  match: string;
  'phone-from': 'own' | 'address';
}

/** Plans a customer sheet and, with --apply, writes it. */
export async function importCustomers(args: CustomerArgs, ctx: CommandContext): Promise<number> {
  const { planCustomerImport, describeCustomerChange, customerCounts, customerChanges } =
    await import('../../jobs/customers/customer-import.js');
  const { runImportFlow, invalidRows } = await import('../import-flow.js');
  const { writeThisPlanHint } = await import('../run-hints.js');
  const { printIssues, formatCounts, doneLabel } = await import('../run-summary.js');
  const { CliError } = await import('../cli-error.js');
  const { parseCustomerMatch } = await import('../../plan/customer-plan.js');
  const { ShopifyCustomerConverter } = await import('../../formats/shopify/shopify-customer-converter.js');
  if (args.blank !== 'keep' && args.blank !== 'clear') {
    throw new CliError('--blank must be keep or clear', ExitCode.Usage);
  }
  const match = parseCustomerMatch(String(args.match));
  if (typeof match === 'string') throw new CliError(match, ExitCode.Usage);
  const out = ctx.out;
  let invalid = 0;
  return runImportFlow(args, ctx, {
    kind: 'customers',
    planFlags: ['from', 'match', 'blank', 'phone-from'],
    planLabel: 'Plan customers',
    plan: (basics) =>
      planCustomerImport({
        ...basics,
        blank: args.blank,
        match,
        from: args.from,
        phoneFrom: args['phone-from'],
        allowEmpty: args['allow-empty'],
      }),
    show: (planned, target) => {
      const { plan } = planned.file;
      const counts = customerCounts(planned.file);
      const changes = customerChanges(plan);
      const source = planned.file.source;
      if (source !== undefined) {
        out.line(`Format: ${source.label}`);
        const imported = source.columns.filter((c) => c.field !== null);
        out.line(`Columns imported: ${imported.map((c) => `${c.header} → ${c.field}`).join(', ')}`);
        const not = source.columns.filter((c) => c.field === null).map((c) => c.header);
        out.line(`Columns not imported: ${not.join(', ') || 'none'}`);
        for (const p of source.phones ?? [])
          if (p.customers > 0) {
            const line = `Phones from an address: ${ShopifyCustomerConverter.describe(p)}`;
            if (p.from === 'own') out.warn(line);
            else out.line(line);
          }
      }
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
        base: {
          runId: planned.run.id,
          runDir: planned.run.dir,
          target: target.describe,
          counts,
          ...(source?.phones !== undefined ? { phonesFromAddress: source.phones } : {}),
        },
        invalid,
        invalidRows: { key: 'failedRows', rows: invalidRows(plan.issues) },
        writes: changes.length,
        dryRun: `Dry run: nothing was written. ${writeThisPlanHint('write', planned.run.id, args, ctx)}`,
        nothing: 'Nothing to write.',
        confirm: `Write ${counts['create'] ?? 0} new and ${counts['update'] ?? 0} changed customers to ${planned.store.name}?`,
      };
    },
    applyLabel: 'Apply customers',
    summarize: (applied: CustomerApplySummary) => {
      out.line(
        `${doneLabel('Applied', applied.status)}: ${applied.created} created · ${applied.updated} updated · ${applied.failed} failed · ${invalid} invalid rows · ${applied.requests} write requests`,
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
    'Customer sheet (id, name, phone, email): matches by id, else phone, else email (or --match); creates and updates',
    (y) =>
      importHelpGroups(
        y
          .positional('file', { type: 'string', demandOption: true, describe: 'CSV or XLSX file' })
          .option('from', {
            choices: ['shopify', 'mbulk'] as const,
            describe:
              'The sheet format: a Shopify customer export or the merchant-bulk sheet (default: recognised from the header)',
          })
          .option('blank', {
            choices: ['keep', 'clear'] as const,
            default: 'keep' as const,
            describe: 'A blank email cell: keep the live email (default) or clear it',
          })
          .option('match', {
            type: 'string',
            default: 'id,phone,email',
            describe:
              'Keys rows are matched on, tried in order: id, phone, email or a comma list (default id,phone,email). ' +
              "A row matched by phone whose email differs from the customer's (or by email whose phone differs) is a " +
              'conflict, not an update, when both are keys; a column left out of --match is updated as data',
          })
          .option('phone-from', {
            choices: ['own', 'address'] as const,
            default: 'own' as const,
            describe:
              "A Shopify export's customer without their own Phone: own leaves them without one (refused, saying why: the API needs a phone); address takes the Default Address Phone, often a shipping or gift recipient's (counted in the plan)",
          })
          .example('$0 import customers customers.csv', 'plan only: what would change')
          .example('$0 import customers customers.csv --apply --yes --json', 'write, unattended')
          .example(
            '$0 import customers customers.csv --match email',
            'match on email only: phones are updated',
          ),
        { safety: [], format: ['from', 'match', 'blank', 'phone-from'] },
      ),
    async (argv) => {
      setExit(await importCustomers(argv as unknown as CustomerArgs, ctx));
    },
  );

import type { Argv } from 'yargs';
import type { MessageApplySummary } from '../../jobs/messages/message-send.js';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { RegisterCommand } from './index.js';
import { notifyOptions, type NotifyArgs } from '../notify-options.js';
import { applyOrDryRun } from '../dry-run-option.js';

interface SendArgs extends GlobalArgs, NotifyArgs {
  file: string;
  template: string;
  apply: boolean;
  yes: boolean;
  sheet?: string | undefined;
  'runs-dir'?: string | undefined;
  'allow-duplicates': boolean;
  resend: boolean;
  'skip-invalid': boolean;
  again?: boolean | undefined;
  max?: number | undefined;
  preview: number;
}

/**
 * `mbulk messages send FILE --template NAME`: checks the template (APPROVED) and every recipient
 * row, previews the first messages, and with --apply sends each one exactly once.
 */
export async function sendMessages(args: SendArgs, ctx: CommandContext): Promise<number> {
  const { planMessageSend, messageCounts } = await import('../../jobs/messages/message-send.js');
  const { runImportFlow, invalidRows } = await import('../import-flow.js');
  const { writeThisPlanHint } = await import('../run-hints.js');
  const { printIssues, formatCounts, doneLabel } = await import('../run-summary.js');
  const { CliError } = await import('../cli-error.js');
  if (args.max !== undefined && !(Number.isInteger(args.max) && args.max >= 0)) {
    throw new CliError('--max must be a whole number >= 0', ExitCode.Usage);
  }
  if (!Number.isInteger(args.preview) || args.preview < 0) {
    throw new CliError('--preview must be a whole number >= 0', ExitCode.Usage);
  }
  const out = ctx.out;
  let duplicates = 0;
  let invalid = 0;
  return runImportFlow(args, ctx, {
    command: 'messages send',
    // The same sheet with the same template: an unfinished run of it is continued, a run that
    // sent it refuses a second (--again).
    kind: 'messages',
    identityParams: [args.template],
    again: args.resend,
    planFlags: ['allow-duplicates', 'resend', 'skip-invalid', 'max'],
    planLabel: 'Plan messages',
    plan: (basics) =>
      planMessageSend({
        ...basics,
        template: args.template,
        allowDuplicates: args['allow-duplicates'],
        resend: args.resend,
        skipInvalid: args['skip-invalid'],
        max: args.max,
        previewCount: args.preview,
      }),
    show: (planned, target) => {
      const { plan, template, preview } = planned.file;
      const counts = messageCounts(planned.file);
      out.line(`Run ${planned.run.id} · store ${planned.store.name} (${planned.store.id})`);
      out.line(`Template ${template.name} (${template.language}, ${template.status}, ${template.category})`);
      out.line(`Plan: ${formatCounts(counts)}`);
      for (const p of preview) {
        out.line(`  Preview, row ${p.rowNumber}, to ${p.to}:`);
        for (const l of p.text.split('\n')) out.line(`    │ ${l}`);
      }
      for (const d of plan.duplicates.slice(0, 10)) {
        out.line(
          d.sameParameters
            ? `  row ${d.rowNumber}: same recipient and parameters as row ${d.firstRow}, sent once`
            : `  row ${d.rowNumber}: same recipient as row ${d.firstRow}, not sent (older plan: parameters not compared)`,
        );
      }
      if (plan.duplicates.length > 10) out.line(`  … and ${plan.duplicates.length - 10} more duplicates`);
      const alreadySent = plan.alreadySent ?? [];
      for (const a of alreadySent.slice(0, 10)) {
        out.line(
          a.status === 'sent'
            ? `  row ${a.rowNumber}: already sent by run ${a.runId}, not sent again (--resend sends it again)`
            : `  row ${a.rowNumber}: run ${a.runId} may have sent it (answer lost), not sent again: mbulk runs resume ${a.runId}`,
        );
      }
      if (alreadySent.length > 10) out.line(`  … and ${alreadySent.length - 10} more already sent`);
      printIssues(out, plan.issues);
      const errors = plan.issues.filter((i) => i.severity === 'error');
      duplicates = plan.duplicates.length;
      invalid = counts['invalid'] ?? 0;
      return {
        base: {
          runId: planned.run.id,
          runDir: planned.run.dir,
          target: target.describe,
          template: template.name,
          counts,
          preview,
        },
        invalid: errors.length,
        invalidRows: {
          key: 'invalidRows',
          rows: invalidRows(plan.issues, true),
        },
        writes: plan.sends.length,
        dryRun: `Dry run: nothing was sent. ${writeThisPlanHint('send', planned.run.id, args, ctx)}`,
        nothing: 'Nothing to send.',
        confirm: `Send ${plan.sends.length} message${plan.sends.length === 1 ? '' : 's'} with template ${template.name} from ${planned.store.name}?`,
      };
    },
    applyLabel: 'Send messages',
    summarize: (applied: MessageApplySummary) => {
      out.line(
        `${doneLabel('Sent', applied.status)}: ${applied.sent} · failed ${applied.failed} · duplicates ${duplicates} · already sent ${applied.alreadySent} · invalid rows ${invalid}`,
      );
      for (const f of applied.failedRows.slice(0, 10)) out.line(`  row ${f.row}: ${f.code}: ${f.message}`);
      return { fields: { sent: applied.sent, failed: applied.failed, alreadySent: applied.alreadySent } };
    },
    failedFile: false,
  });
}

/** `mbulk messages send`. */
export const registerMessages: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('messages', 'Template messages: send to every recipient of a sheet, once', (y) =>
    (y as unknown as Argv<GlobalArgs>)
      .command(
        'send <file>',
        'Check a recipients sheet (to or customer_id, one column per template parameter), preview, and with --apply send; results.csv says per row: sent, duplicate of row N, already sent in run X, invalid, failed',
        (c) =>
          notifyOptions(c)
            .positional('file', { type: 'string', demandOption: true, describe: 'CSV or XLSX file' })
            .option('template', {
              type: 'string',
              demandOption: true,
              describe: 'Name of an APPROVED template',
            })
            .option('apply', { type: 'boolean', default: false, describe: 'Send (default: dry run)' })
            .option('dry-run', {
              type: 'boolean',
              describe: 'Preview only, send nothing (what happens without --apply; says so in a script)',
            })
            .check(applyOrDryRun('send'), true)
            .option('yes', {
              type: 'boolean',
              default: false,
              describe: 'Do not ask for confirmation before sending',
            })
            .option('sheet', { type: 'string', describe: 'XLSX: the sheet to read (default: the first)' })
            .option('runs-dir', {
              type: 'string',
              describe: 'Where run directories go (default: .mbulk/runs)',
            })
            .option('allow-duplicates', {
              type: 'boolean',
              default: false,
              describe:
                'Send every row, even a row with the same recipient and parameters as an earlier one (default: sent once; the same recipient with other parameters is always another message)',
            })
            .option('resend', {
              type: 'boolean',
              default: false,
              describe:
                'Send again to recipients an earlier run already sent this template with the same parameters (default: skipped); a sheet a run already sent is planned again (as --again)',
            })
            .option('again', {
              type: 'boolean',
              default: false,
              describe:
                'Plan a sheet that a run already sent with this template again, without the recipients this template was already sent to (default: refused, exit 3, naming that run; --resend sends to them too). An unfinished run of the same sheet is always continued, never planned again',
            })
            .option('skip-invalid', {
              type: 'boolean',
              default: false,
              describe: 'Send to the valid rows even when others are invalid',
            })
            .option('max', { type: 'number', describe: 'Refuse (exit 3) to send more messages than this' })
            .option('preview', { type: 'number', default: 3, describe: 'Messages shown in the preview' })
            .example('$0 messages send recipients.csv --template order_update', 'check and preview')
            .example(
              '$0 messages send recipients.csv --template order_update --apply --yes --max 500',
              'send, unattended, at most 500',
            ),
        async (argv) => {
          setExit(await sendMessages(argv as unknown as SendArgs, ctx));
        },
      )
      .demandCommand(1, 'Name a messages command: send.'),
  );

import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { RegisterCommand } from './index.js';

interface SendArgs extends GlobalArgs {
  file: string;
  template: string;
  apply: boolean;
  yes: boolean;
  sheet?: string | undefined;
  'runs-dir'?: string | undefined;
  'allow-duplicates': boolean;
  resend: boolean;
  'skip-invalid': boolean;
  max?: number | undefined;
  preview: number;
}

/**
 * `mbulk messages send FILE --template NAME`: checks the template (APPROVED) and every recipient
 * row, previews the first messages, and with --apply sends each one exactly once.
 */
export async function sendMessages(args: SendArgs, ctx: CommandContext): Promise<number> {
  const { resolveTarget } = await import('../target.js');
  const { planMessageSend, applyMessageRun, messageCounts } = await import('../../jobs/message-send.js');
  const { withProgress } = await import('../progress.js');
  const { confirmApply } = await import('../confirm.js');
  const { printIssues, formatCounts, applyExitCode } = await import('../run-summary.js');
  const { CliError } = await import('../cli-error.js');
  if (args.max !== undefined && !(Number.isInteger(args.max) && args.max >= 0)) {
    throw new CliError('--max must be a whole number >= 0', ExitCode.Usage);
  }
  if (!Number.isInteger(args.preview) || args.preview < 0) {
    throw new CliError('--preview must be a whole number >= 0', ExitCode.Usage);
  }
  const out = ctx.out;
  const target = await resolveTarget(args, ctx);
  try {
    const file = resolve(ctx.cwd, args.file);
    const runsRoot = resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs');
    const planned = await withProgress(out, 'Plan messages', (report) =>
      planMessageSend({
        client: target.client,
        file,
        runsRoot,
        target: target.describe,
        template: args.template,
        read: args.sheet ? { sheet: args.sheet } : {},
        allowDuplicates: args['allow-duplicates'],
        resend: args.resend,
        skipInvalid: args['skip-invalid'],
        max: args.max,
        previewCount: args.preview,
        onProgress: report,
        onWarning: (m) => out.warn(`warning: ${m}`),
        signal: ctx.signal,
      }),
    );
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
      out.line(`  row ${d.rowNumber}: same recipient as row ${d.firstRow}, sent once`);
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
    const base = {
      runId: planned.run.id,
      runDir: planned.run.dir,
      target: target.describe,
      template: template.name,
      counts,
      preview,
    };
    const invalidRows = errors.map((i) => ({
      sheet: i.sheet,
      row: i.rowNumber,
      column: i.column,
      code: i.code,
      message: i.message,
    }));

    if (planned.refusal) {
      out.warn(`mbulk: refused: ${planned.refusal}`);
      out.result({ ok: false, refused: planned.refusal, applied: false, ...base });
      return ExitCode.Refused;
    }
    if (!args.apply) {
      out.line(
        plan.sends.length > 0
          ? `Dry run: nothing was sent. To send: mbulk messages send ${args.file} --template ${template.name} --apply`
          : 'Nothing to send.',
      );
      out.result({ ok: errors.length === 0, applied: false, ...base, invalidRows });
      return errors.length > 0 ? ExitCode.RowsFailed : ExitCode.Ok;
    }
    if (errors.length > 0 && !args['skip-invalid']) {
      out.warn(
        `mbulk: nothing was sent: fix the ${errors.length} error${errors.length === 1 ? '' : 's'} above (or add --skip-invalid to send to the valid rows)`,
      );
      out.result({ ok: false, applied: false, ...base, invalidRows });
      return ExitCode.RowsFailed;
    }
    if (plan.sends.length > 0) {
      await confirmApply(
        out,
        `Send ${plan.sends.length} message${plan.sends.length === 1 ? '' : 's'} with template ${template.name} from ${planned.store.name}?`,
        args.yes,
      );
    }
    const applied = await withProgress(out, 'Send messages', (report) =>
      applyMessageRun(planned.run, {
        client: target.client,
        concurrency: args.concurrency,
        onProgress: report,
        signal: ctx.signal,
      }),
    );
    out.line(
      `Sent: ${applied.sent} · failed ${applied.failed} · duplicates ${plan.duplicates.length} · already sent ${applied.alreadySent} · invalid rows ${counts['invalid'] ?? 0}`,
    );
    for (const f of applied.failedRows.slice(0, 10)) out.line(`  row ${f.row}: ${f.code}: ${f.message}`);
    out.line(`Results: ${planned.run.file('results')}`);
    if (applied.status !== 'completed') {
      out.warn(`mbulk: the run was ${applied.status}; continue it with: mbulk runs resume ${planned.run.id}`);
    }
    const ok = applied.failedRows.length === 0 && applied.status === 'completed';
    out.result({
      ok,
      applied: true,
      ...base,
      status: applied.status,
      sent: applied.sent,
      failed: applied.failed,
      alreadySent: applied.alreadySent,
      failedRows: applied.failedRows,
      abortedBy: applied.abortedBy,
    });
    return applyExitCode(out, applied, !ok);
  } finally {
    await target.close();
  }
}

/** `mbulk messages send`. */
export const registerMessages: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('messages', 'Template messages: send to every recipient of a sheet, once', (y) =>
    (y as unknown as Argv<GlobalArgs>)
      .command(
        'send <file>',
        'Check a recipients sheet (to or customer_id, one column per template parameter), preview, and with --apply send',
        (c) =>
          c
            .positional('file', { type: 'string', demandOption: true, describe: 'CSV or XLSX file' })
            .option('template', {
              type: 'string',
              demandOption: true,
              describe: 'Name of an APPROVED template',
            })
            .option('apply', { type: 'boolean', default: false, describe: 'Send (default: dry run)' })
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
              describe: 'Send every row, even to a recipient listed more than once',
            })
            .option('resend', {
              type: 'boolean',
              default: false,
              describe:
                'Send again to recipients an earlier run already sent this template with the same parameters (default: skipped)',
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

import { resolve } from 'node:path';
import type { TemplateApplySummary } from '../../jobs/templates/template-import.js';
import type { Argv } from 'yargs';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { TemplateStatusRow } from '../../jobs/templates/template-import.js';
import type { RegisterCommand } from './index.js';
import { notifyOptions, type NotifyArgs } from '../notify-options.js';
import { applyOrDryRun } from '../dry-run-option.js';
import { visibleText } from '../../sheets/visible-text.js';

interface CreateArgs extends GlobalArgs, NotifyArgs {
  file: string;
  apply: boolean;
  yes: boolean;
  sheet?: string | undefined;
  'runs-dir'?: string | undefined;
  'state-dir'?: string | undefined;
  'skip-invalid': boolean;
  again?: boolean | undefined;
}

interface StatusArgs extends GlobalArgs {
  watch: boolean;
  interval: number;
  name?: string | undefined;
  'state-dir'?: string | undefined;
}

function stateDirOf(args: { 'state-dir'?: string | undefined }, ctx: CommandContext): string {
  return resolve(ctx.cwd, args['state-dir'] ?? '.mbulk');
}

/** `mbulk templates create FILE`: checks every row, then (with --apply) submits them for review. */
export async function createTemplates(args: CreateArgs, ctx: CommandContext): Promise<number> {
  const { planTemplateImport, describeTemplateEntry, templateCounts } =
    await import('../../jobs/templates/template-import.js');
  const { runImportFlow, invalidRows } = await import('../import-flow.js');
  const { writeThisPlanHint } = await import('../run-hints.js');
  const { printIssues, formatCounts, doneLabel } = await import('../run-summary.js');
  const out = ctx.out;
  let invalid = 0;
  return runImportFlow(args, ctx, {
    command: 'templates create',
    // The same sheet: an unfinished run of it is continued, a run that submitted it refuses a
    // second (--again).
    kind: 'templates',
    planFlags: ['skip-invalid'],
    planLabel: 'Plan templates',
    plan: (basics) =>
      planTemplateImport({
        ...basics,
        stateDir: stateDirOf(args, ctx),
        skipInvalid: args['skip-invalid'],
      }),
    show: (planned, target) => {
      const { plan } = planned.file;
      const counts = templateCounts(plan);
      out.line(`Run ${planned.run.id} · store ${planned.store.name} (${planned.store.id})`);
      out.line(`Plan: ${formatCounts(counts)}`);
      for (const e of plan.entries) out.line(`  ${describeTemplateEntry(e)}`);
      printIssues(out, plan.issues);
      const errors = plan.issues.filter((i) => i.severity === 'error');
      invalid = counts['invalid'] ?? 0;
      return {
        base: { runId: planned.run.id, runDir: planned.run.dir, target: target.describe, counts },
        invalid: errors.length,
        invalidRows: {
          key: 'invalidRows',
          rows: invalidRows(plan.issues, true),
        },
        writes: plan.counts.create,
        dryRun: `Dry run: nothing was submitted. ${writeThisPlanHint('submit', planned.run.id, args, ctx)}`,
        nothing: 'Nothing to submit.',
        confirm: `Submit ${plan.counts.create} template${plan.counts.create === 1 ? '' : 's'} for review in ${planned.store.name}?`,
      };
    },
    applyLabel: 'Create templates',
    summarize: (applied: TemplateApplySummary) => {
      for (const t of applied.templates) {
        const what =
          t.outcome === 'created' || t.outcome === 'unchanged'
            ? `${t.outcome} ${t.id ?? ''} ${t.status ?? ''} (${t.category ?? '?'})`
            : `${t.outcome}: ${t.error ?? ''}`;
        out.line(`  row ${t.row}: ${t.name}: ${what.replace(/\s+/g, ' ').trim()}`);
      }
      out.line(
        `${doneLabel('Created', applied.status)}: ${applied.created} · failed ${applied.failed} · invalid rows ${invalid}`,
      );
      return { fields: { created: applied.created, failed: applied.failed, templates: applied.templates } };
    },
    failedFile: false,
    notes: (applied) =>
      applied.created > 0 ? ['Follow the review with: mbulk templates status --watch'] : [],
  });
}

/** "order_ready  APPROVED  UTILITY (re-categorised from MARKETING)  rejected: …" */
export function describeTemplateStatus(t: TemplateStatusRow, nameWidth = 0): string {
  // Made visible before padding, so the columns line up with what the terminal shows.
  const parts = [visibleText(t.name).padEnd(nameWidth), t.status.padEnd(9), t.category.padEnd(9)];
  if (t.recategorised) parts.push(`re-categorised (submitted as ${t.submittedCategory ?? '?'})`);
  if (t.rejectedReason) parts.push(`rejected: ${t.rejectedReason}`);
  return parts.join('  ').trimEnd();
}

function nameWidth(templates: readonly TemplateStatusRow[]): number {
  return Math.min(40, Math.max(0, ...templates.map((t) => visibleText(t.name).length)));
}

/** `mbulk templates status [--watch]`: review status, category (re-categorised flag), rejected reason. */
export async function templatesStatus(args: StatusArgs, ctx: CommandContext): Promise<number> {
  const { resolveTarget } = await import('../target.js');
  const { readTemplateStatus, watchTemplateStatus } = await import('../../jobs/templates/template-import.js');
  const { CliError } = await import('../cli-error.js');
  if (!(args.interval > 0))
    throw new CliError('--interval must be a number of seconds above 0', ExitCode.Usage);
  const out = ctx.out;
  const target = await resolveTarget(args, ctx);
  let current = target;
  try {
    const options = {
      client: target.client,
      stateDir: stateDirOf(args, ctx),
      name: args.name,
      signal: ctx.signal,
    };
    let interrupted = false;
    let result: { templates: TemplateStatusRow[] };
    if (args.watch) {
      const shown = new Map<string, string>();
      const watched = await watchTemplateStatus({
        ...options,
        intervalMs: args.interval * 1000,
        // The embedded sandbox's store is read again from its file at each poll: a review made
        // from another terminal (another process) shows up.
        ...(target.embedded
          ? {
              clientForPoll: async (poll: number) => {
                if (poll === 1) return target.client;
                await current.close();
                current = await resolveTarget(args, ctx, { announce: false });
                return current.client;
              },
            }
          : {}),
        onPoll: (templates, poll) => {
          const width = nameWidth(templates);
          for (const t of templates) {
            const line = describeTemplateStatus(t, width);
            const state = `${t.status} ${t.category} ${t.rejectedReason ?? ''}`;
            if (shown.get(t.name) === state) continue;
            shown.set(t.name, state);
            out.line(`${poll > 1 ? `${new Date().toISOString()} ` : ''}${line}`);
          }
          const pending = templates.filter((t) => t.status === 'PENDING').length;
          if (pending > 0)
            out.warn(`${pending} pending; checking again in ${args.interval}s (Ctrl-C to stop)`);
        },
      });
      interrupted = watched.interrupted;
      result = watched;
    } else {
      result = await readTemplateStatus(options);
      const width = nameWidth(result.templates);
      for (const t of result.templates) out.line(describeTemplateStatus(t, width));
      if (result.templates.length === 0) out.line('No templates.');
    }
    const templates = result.templates;
    const count = (s: string) => templates.filter((t) => t.status === s).length;
    out.line(
      `${templates.length} templates · ${count('APPROVED')} approved · ${count('PENDING')} pending · ${count('REJECTED')} rejected · ${templates.filter((t) => t.recategorised).length} re-categorised`,
    );
    out.result({ ok: true, target: target.describe, interrupted, templates });
    return ExitCode.Ok;
  } finally {
    await current.close();
  }
}

/** `mbulk templates create|status`. */
export const registerTemplates: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('templates', 'Message templates: create from a sheet, follow their review', (y) =>
    (y as unknown as Argv<GlobalArgs>)
      .command(
        'create <file>',
        'Check a templates sheet against every rule and (with --apply) submit the templates for review',
        (c) =>
          notifyOptions(c)
            .positional('file', { type: 'string', demandOption: true, describe: 'CSV or XLSX file' })
            .option('apply', {
              type: 'boolean',
              default: false,
              describe: 'Submit the templates (default: dry run)',
            })
            .option('dry-run', {
              type: 'boolean',
              describe: 'Preview only, submit nothing (what happens without --apply; says so in a script)',
            })
            .check(applyOrDryRun('submit'), true)
            .option('yes', {
              type: 'boolean',
              default: false,
              describe: 'Do not ask for confirmation before submitting',
            })
            .option('sheet', { type: 'string', describe: 'XLSX: the sheet to read (default: the first)' })
            .option('runs-dir', {
              type: 'string',
              describe: 'Where run directories go (default: .mbulk/runs)',
            })
            .option('state-dir', {
              type: 'string',
              hidden: true,
              describe: 'Where submitted categories are remembered (default: .mbulk)',
            })
            .option('again', {
              type: 'boolean',
              default: false,
              describe:
                'Plan a sheet that a run already submitted to this store again (default: refused, exit 3, naming that run; a template the store has is not submitted again). An unfinished run of the same sheet is always continued, never planned again',
            })
            .option('skip-invalid', {
              type: 'boolean',
              default: false,
              describe: 'Submit the valid rows even when others are invalid',
            })
            .example('$0 templates create message-templates.csv', 'check every row, submit nothing')
            .example('$0 templates create message-templates.csv --apply --yes', 'submit for review'),
        async (argv) => {
          setExit(await createTemplates(argv as unknown as CreateArgs, ctx));
        },
      )
      .command(
        'status',
        'Review status, category (flagged when the reviewer re-categorised it) and rejected reason of every template',
        (c) =>
          c
            .option('watch', {
              type: 'boolean',
              default: false,
              describe: 'Poll until no template is PENDING',
            })
            .option('interval', { type: 'number', default: 30, describe: 'Seconds between polls (--watch)' })
            .option('name', { type: 'string', describe: 'Only templates whose name contains this' })
            .option('state-dir', {
              type: 'string',
              hidden: true,
              describe: 'Where submitted categories are remembered (default: .mbulk)',
            }),
        async (argv) => {
          setExit(await templatesStatus(argv as unknown as StatusArgs, ctx));
        },
      )
      .demandCommand(1, 'Name a templates command: create or status.'),
  );

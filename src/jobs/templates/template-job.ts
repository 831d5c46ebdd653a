import { idempotencyKey } from '../../api/idempotency-key.js';
import type { RowFilesSummary } from '../../apply/results-file.js';
import type { TemplatePlanEntry } from '../../plan/template-plan.js';
import type { AbortCause } from '../job-events.js';
import { changeOf } from '../runner/change-outcome.js';
import { refuseInvalidRows } from '../runner/invalid-rows-error.js';
import type {
  ApplyJobOptions,
  FailedRow,
  JobContext,
  JobDefinition,
  JobSession,
} from '../runner/job-definition.js';
import { rememberSubmitted, submittedTemplatesPath } from './submitted-templates.js';
import { TemplatePlanFileSchema, type TemplatePlanFile } from './template-plan-file.js';
import { writeTemplateReport } from './template-report.js';

interface TemplateOp {
  kind: 'template-create';
  key: string;
  idempotent: true;
  idempotencyKey: string;
  entry: TemplatePlanEntry;
}

/** What a create's journal record keeps. */
interface TemplateOpResult {
  id: string;
  status: string;
  category: string;
}

export type ApplyTemplateOptions = Omit<ApplyJobOptions, 'allowPriceJumps' | 'writeCheck'>;

export interface TemplateRowOutcome {
  sheet: string;
  row: number;
  name: string;
  outcome: 'created' | 'unchanged' | 'failed' | 'not_run';
  id?: string;
  /** Review status as the service answered (PENDING after a create). */
  status?: string;
  category?: string;
  error?: string;
}

export interface TemplateApplySummary {
  runId: string;
  status: 'completed' | 'interrupted' | 'aborted';
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  created: number;
  failed: number;
  unknown: number;
  templates: TemplateRowOutcome[];
  rows: RowFilesSummary;
  failedRows: FailedRow[];
}

/** The template as results.csv's extra cells and the summary's `templates` list show it. */
function rowOutcome(
  e: TemplatePlanEntry,
  outcome: TemplateRowOutcome['outcome'],
  live?: TemplateOpResult,
): TemplateRowOutcome {
  const t: TemplateRowOutcome = { sheet: e.sheet, row: e.rowNumber, name: e.name, outcome };
  if (live) {
    t.id = live.id;
    t.status = live.status;
    t.category = live.category;
  }
  return t;
}

/**
 * One POST per template, keyed with idempotencyKey(run, entry, body) and journaled, so a resumed run
 * never submits one twice; the category sent is remembered per store before and after the create.
 */
function templateSession(
  ctx: JobContext<TemplatePlanFile>,
): JobSession<TemplateOp, TemplateOpResult, TemplateApplySummary> {
  const { run, file, client } = ctx;
  const stateFile = submittedTemplatesPath(file.stateDir, file.store.id);
  const templates: TemplateRowOutcome[] = file.plan.entries
    .filter((e) => e.action === 'unchanged')
    .map((e) => rowOutcome(e, 'unchanged', e.existing));
  const operations: TemplateOp[] = file.plan.entries
    .filter((e) => e.action === 'create')
    .map((entry) => ({
      kind: 'template-create',
      key: entry.key,
      idempotent: true,
      idempotencyKey: idempotencyKey(run.id, entry.key, entry.body),
      entry,
    }));
  return {
    first: { operations },
    execute: async (op) => {
      const body = op.entry.body;
      const submitted = { category: body.category, submitted_at: new Date().toISOString(), run_id: run.id };
      rememberSubmitted(stateFile, op.entry.name, submitted);
      // No abort signal: a stop lets the creates in flight finish and be journaled.
      const created = await client.templates.create(body, { idempotencyKey: op.idempotencyKey });
      rememberSubmitted(stateFile, op.entry.name, { ...submitted, id: created.id });
      return { id: created.id, status: created.status, category: created.category };
    },
    changes: (o) => {
      const e = o.op.entry;
      const result = o.status === 'done' ? o.result : undefined;
      const change = changeOf(
        o,
        { sheet: e.sheet, row: e.rowNumber },
        { outcome: 'created', key: e.name, entityId: result?.id },
        result ? { template_status: result.status, template_category: result.category } : undefined,
      );
      const t = rowOutcome(e, result ? 'created' : o.status === 'not_run' ? 'not_run' : 'failed', result);
      if (!result) t.error = change.failure?.message ?? change.failure?.code ?? 'failed';
      templates.push(t);
      return [change];
    },
    rowResults: (label, rows) => {
      for (const e of file.plan.entries.filter((x) => x.action === 'unchanged')) {
        rows.byRow.set(e.rowNumber, {
          sheet: label,
          row: e.rowNumber,
          outcome: 'unchanged',
          key: e.name,
          ...(e.existing ? { entityId: e.existing.id } : {}),
        });
        if (e.existing) {
          rows.extra.set(e.rowNumber, {
            template_status: e.existing.status,
            template_category: e.existing.category,
          });
        }
      }
    },
    summarize: (t) => ({
      runId: run.id,
      status: t.execution.status,
      ...(t.abortedBy ? { abortedBy: t.abortedBy } : {}),
      created: t.done,
      failed: t.failed,
      unknown: t.unknown,
      templates: templates.sort((a, b) => a.row - b.row),
      rows: t.rows as RowFilesSummary,
      failedRows: t.failedRows,
    }),
  };
}

/** The templates kind: message templates created for review. */
export const templateJob: JobDefinition<
  TemplatePlanFile,
  TemplateOp,
  TemplateOpResult,
  TemplateApplySummary
> = {
  kind: 'templates',
  planSchema: TemplatePlanFileSchema,
  backup: false,
  notRun: 'failure',
  // A plan with invalid rows creates nothing unless it was planned with skipInvalid.
  refuse: (run, file) =>
    refuseInvalidRows(file.plan.issues, {
      skipInvalid: file.skipInvalid,
      invalid: file.plan.counts.invalid,
      done: 'submitted',
      report: run.file('report'),
    }),
  session: templateSession,
  // The header row's own problems are the report's, not a row's.
  invalidIssues: (file) => file.plan.issues.filter((i) => i.rowNumber > 1),
  otherwise: 'skipped',
  extraColumns: ['name', 'template_status', 'template_category'],
  runCounts: (s) => ({ created: s.created, failed: s.failed }),
  report: writeTemplateReport,
  cliSummary: (s) => ({
    created: s.created,
    failed: s.failed,
    templates: s.templates,
    failedRows: s.failedRows,
  }),
};

import { idempotencyKey } from '../../api/idempotency-key.js';
import type { OperationOutcome } from '../../apply/execute-plan.js';
import type { TemplatePlanEntry } from '../../plan/template-plan.js';
import { failureOf, notWrittenByKey } from '../../results/change-outcome.js';
import { invalidRowsError } from '../runner/invalid-rows-error.js';
import { defineJob } from '../runner/define-job.js';
import type { ApplyJobOptions, JobContext, JobSession, SummaryOf } from '../runner/job-definition.js';
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

export type ApplyTemplateOptions = ApplyJobOptions;

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
): JobSession<
  TemplateOp,
  TemplateOpResult,
  { templates: TemplateRowOutcome[]; notWritten: Record<string, string> }
> {
  const { run, file, client } = ctx;
  const stateFile = submittedTemplatesPath(file.stateDir, file.store.id);
  const unchanged = file.plan.entries.filter((e) => e.action === 'unchanged');
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
    operations,
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
      return [
        {
          status: o.status,
          outcome: 'created',
          rows: [{ sheet: e.sheet, row: e.rowNumber }],
          key: e.name,
          entityId: result?.id,
          extra: result ? { template_status: result.status, template_category: result.category } : undefined,
        },
      ];
    },
    results: {
      // The header row's own problems are the report's, not a row's.
      invalid: file.plan.issues.filter((i) => i.rowNumber > 1),
      rows: unchanged.map((e) => ({
        sheet: e.sheet,
        row: e.rowNumber,
        outcome: 'unchanged' as const,
        key: e.name,
        ...(e.existing
          ? {
              entityId: e.existing.id,
              extra: { template_status: e.existing.status, template_category: e.existing.category },
            }
          : {}),
      })),
      otherwise: 'skipped',
      extraColumns: ['name', 'template_status', 'template_category'],
    },
    values: (t) => ({
      templates: [
        ...unchanged.map((e) => rowOutcome(e, 'unchanged', e.existing)),
        ...t.execution.outcomes.map(templateOutcome),
      ].sort((a, b) => a.row - b.row),
      // The review page's outcome of each template: what was not created, by plan key.
      notWritten: notWrittenByKey(t.execution.outcomes, (op) => op.entry.key),
    }),
  };
}

/** What became of the template of a create. */
function templateOutcome(o: OperationOutcome<TemplateOp, TemplateOpResult>): TemplateRowOutcome {
  const result = o.status === 'done' ? o.result : undefined;
  const t = rowOutcome(
    o.op.entry,
    result ? 'created' : o.status === 'not_run' ? 'not_run' : 'failed',
    result,
  );
  if (!result) {
    const failure = failureOf(o);
    t.error = failure?.message ?? failure?.code ?? 'failed';
  }
  return t;
}

/** The templates kind: message templates created for review. */
export const templateJob = defineJob({
  kind: 'templates',
  planSchema: TemplatePlanFileSchema,
  backup: false,
  // A plan with invalid rows creates nothing unless it was planned with skipInvalid.
  invalidRows: (run, file) =>
    invalidRowsError(file.plan.issues, {
      skipInvalid: file.skipInvalid,
      invalid: file.plan.counts.invalid,
      done: 'submitted',
      report: run.file('report'),
    }),
  session: templateSession,
  /**
   * The summary of a templates apply: templates `created` (submitted for review), `failed` (failed,
   * unknown, or not reached), and `templates`: every planned row's template and how it ended.
   */
  summary: {
    created: { of: 'done' },
    failed: { of: 'failed' },
    templates: { of: 'own' },
  },
  report: writeTemplateReport,
});

export type TemplateApplySummary = SummaryOf<typeof templateJob>;

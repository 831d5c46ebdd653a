import { dirname } from 'node:path';
import { listAll } from '../../api/paginate.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import {
  mapTemplateRow,
  resolveTemplateColumns,
  type DesiredTemplate,
} from '../../mapping/template-sheet.js';
import { appendAll, prependAll } from '../../plan/append-all.js';
import { planTemplates } from '../../plan/template-plan.js';
import type { Store } from '../../schema/index.js';
import type { SheetRow } from '../../sheets/sheet-row.js';
import { planFromSheet, readInputSheet, type PlanFromSheetOptions } from '../runner/plan-from-sheet.js';
import type { TemplatePlanFile } from './template-plan-file.js';
import { MAX_LIVE_TEMPLATES } from './template-status.js';
import { invalidRowCount, templateCounts, writeTemplateReport } from './template-report.js';

export interface PlanTemplateOptions extends Omit<PlanFromSheetOptions, 'allowEmpty'> {
  /** Default: the parent of runsRoot (`.mbulk`). */
  stateDir?: string;
  skipInvalid?: boolean;
}

export interface PlannedTemplateRun {
  run: RunDirectory;
  file: TemplatePlanFile;
  store: Store;
}

/**
 * Reads a templates sheet and plans it (dry run): every constraint of the spec is checked on every
 * row, and names against the sheet and the store's existing templates, before anything is sent.
 */
export async function planTemplateImport(options: PlanTemplateOptions): Promise<PlannedTemplateRun> {
  const skipInvalid = options.skipInvalid ?? false;
  // A sheet without templates plans nothing to create.
  return planFromSheet(
    { ...options, allowEmpty: true },
    {
      kind: 'templates',
      // A sheet of templates submitted once is not submitted again without --again.
      deltas: () => true,
      read: () =>
        readInputSheet(options, {
          header: (info) => resolveTemplateColumns(info.sheet, info.columns),
          fatal: (i) => i.code === 'missing_column',
          take: (columns) => {
            const desired: DesiredTemplate[] = [];
            const issues: RowIssue[] = [];
            const add = (row: SheetRow) => {
              const mapped = mapTemplateRow(row, columns);
              appendAll(issues, mapped.issues);
              if (mapped.template) desired.push(mapped.template);
            };
            return { add, desired, issues };
          },
        }),
      plan: async ({ taken, headerIssues, rows }, store) => {
        options.onProgress?.({ phase: 'fetch', done: 0, message: 'existing templates' });
        const live = await listAll(
          options.client.templates.list({}, options.signal ? { signal: options.signal } : {}),
          { max: MAX_LIVE_TEMPLATES, what: 'GET /api/v2/message_templates' },
        );
        const plan = planTemplates(taken.desired, live);
        // A header error that is not fatal (a fourth button column) still makes every row invalid.
        const headerErrors = headerIssues.filter((i) => i.severity === 'error');
        prependAll(plan.issues, headerIssues.concat(taken.issues));
        if (headerErrors.length > 0 && rows > 0) {
          for (const e of plan.entries.filter((x) => x.action === 'create')) {
            plan.issues.push({
              severity: 'error',
              code: 'sheet_header_error',
              message: `not created: the sheet's header has errors (${headerErrors.map((i) => i.message).join('; ')})`,
              sheet: e.sheet,
              rowNumber: e.rowNumber,
            });
          }
          plan.entries = plan.entries.filter((x) => x.action !== 'create');
          plan.counts.create = 0;
        }
        plan.counts.invalid = invalidRowCount(plan.issues.filter((i) => i.rowNumber > 1));
        return {
          options: { skipInvalid },
          file: (head) => ({
            ...head,
            store: { id: store.id, name: store.name },
            stateDir: options.stateDir ?? dirname(options.runsRoot),
            skipInvalid,
            plan,
          }),
        };
      },
      counts: (file, { rows }) => ({ rows, ...templateCounts(file.plan) }),
      report: writeTemplateReport,
    },
  );
}

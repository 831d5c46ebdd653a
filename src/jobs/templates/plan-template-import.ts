import { dirname } from 'node:path';
import type { MerchantClient } from '../../api/merchant-client.js';
import { listAll } from '../../api/paginate.js';
import { RunDirectory } from '../../apply/run-directory.js';
import { clientStore, PLANNER_STORE_MAX_AGE_MS } from '../../apply/run-store.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import {
  mapTemplateRow,
  resolveTemplateColumns,
  type DesiredTemplate,
} from '../../mapping/template-sheet.js';
import { appendAll, prependAll } from '../../plan/append-all.js';
import { planTemplates } from '../../plan/template-plan.js';
import type { Store } from '../../schema/index.js';
import type { ReadSheetOptions } from '../../sheets/read-sheet.js';
import type { JobCallbacks } from '../job-events.js';
import { keepRunInput } from '../run-input.js';
import { openSheet, readRowsInBatches, refuseFatalHeader } from '../runner/read-input.js';
import type { TemplatePlanFile } from './template-plan-file.js';
import { MAX_LIVE_TEMPLATES } from './template-status.js';
import { invalidRowCount, templateCounts, writeTemplateReport } from './template-report.js';

export interface PlanTemplateOptions extends JobCallbacks {
  client: MerchantClient;
  file: string;
  runsRoot: string;
  /** Where the run writes, for people (never the token). */
  target: string;
  read?: ReadSheetOptions;
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
  const { client } = options;
  const signal = options.signal ? { signal: options.signal } : {};
  const store = await clientStore(client, options.signal, PLANNER_STORE_MAX_AGE_MS);
  const { reader, info } = await openSheet(options.file, options.read);
  const { columns, issues: headerIssues } = resolveTemplateColumns(info.sheet, info.columns);
  const fatal = headerIssues.filter((i) => i.severity === 'error' && i.code === 'missing_column');
  await refuseFatalHeader(reader, options.file, fatal);
  const desired: DesiredTemplate[] = [];
  const rowIssues: RowIssue[] = [];
  const rows = await readRowsInBatches(reader, options.file, options, (row) => {
    const mapped = mapTemplateRow(row, columns);
    appendAll(rowIssues, mapped.issues);
    if (mapped.template) desired.push(mapped.template);
  });
  options.onProgress?.({ phase: 'fetch', done: 0, message: 'existing templates' });
  const live = await listAll(client.templates.list({}, signal), {
    max: MAX_LIVE_TEMPLATES,
    what: 'GET /api/v2/message_templates',
  });
  const plan = planTemplates(desired, live);
  // A header error that is not fatal (a fourth button column) still makes every row invalid.
  const headerErrors = headerIssues.filter((i) => i.severity === 'error');
  prependAll(plan.issues, headerIssues.concat(rowIssues));
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

  const stateDir = options.stateDir ?? dirname(options.runsRoot);
  const run = RunDirectory.create(options.runsRoot, {
    kind: 'templates',
    input: options.file,
    target: options.target,
    storeId: store.id,
    options: { skipInvalid: options.skipInvalid ?? false },
    counts: { rows, ...templateCounts(plan) },
  });
  const file: TemplatePlanFile = {
    kind: 'templates',
    version: 1,
    store: { id: store.id, name: store.name },
    input: keepRunInput(run, options.file, 'templates', info.format === 'xlsx' ? info.sheet : undefined),
    stateDir,
    skipInvalid: options.skipInvalid ?? false,
    plan,
  };
  run.writePlan(file);
  writeTemplateReport(run, file);
  return { run, file, store };
}

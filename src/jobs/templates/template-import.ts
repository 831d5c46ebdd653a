import type { RunDirectory } from '../../apply/run-directory.js';
import { runJob } from '../runner/run-job.js';
import { templateJob, type ApplyTemplateOptions, type TemplateApplySummary } from './template-job.js';

export {
  planTemplateImport,
  type PlanTemplateOptions,
  type PlannedTemplateRun,
} from './plan-template-import.js';
export type { TemplatePlanFile } from './template-plan-file.js';
export type { ApplyTemplateOptions, TemplateApplySummary, TemplateRowOutcome } from './template-job.js';
export { describeTemplateEntry, templateCounts } from './template-report.js';
export {
  readSubmittedTemplates,
  submittedTemplatesPath,
  type SubmittedTemplates,
} from './submitted-templates.js';
export {
  readTemplateStatus,
  watchTemplateStatus,
  type TemplateStatusOptions,
  type TemplateStatusRow,
  type WatchTemplateOptions,
} from './template-status.js';
export { InvalidRowsError } from '../runner/invalid-rows-error.js';

/**
 * Creates (or resumes creating) the planned templates (see templateJob). A plan with invalid rows
 * creates nothing unless it was planned with skipInvalid.
 */
export function applyTemplateRun(
  run: RunDirectory,
  options: ApplyTemplateOptions,
): Promise<TemplateApplySummary> {
  return runJob(run, templateJob, options);
}

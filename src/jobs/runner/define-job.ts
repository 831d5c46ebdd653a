import type { ApplyJobOptions, JobDefinition, PlanFileBase, SummaryFields } from './job-definition.js';

/**
 * A kind's definition, its types inferred: the plan file from `planSchema`, the operations, their
 * results and the kind's own values from `session`, the summary from `summary` (SummaryOf).
 */
export function defineJob<
  File extends PlanFileBase,
  Op extends { key: string },
  R,
  Fields extends SummaryFields,
  Own extends object = object,
  Options extends ApplyJobOptions = ApplyJobOptions,
>(
  definition: JobDefinition<File, Op, R, Fields, Own, Options>,
): JobDefinition<File, Op, R, Fields, Own, Options> {
  return definition;
}

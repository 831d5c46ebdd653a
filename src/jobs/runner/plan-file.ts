import { z } from 'zod';
import type { RunDirectory } from '../../apply/run-directory.js';
import { MbulkError } from '../../errors/mbulk-error.js';

/**
 * plan.json is damaged or foreign (edited by hand, another kind, an unknown format version, a
 * missing field): nothing is applied from it. Usage error (exit 2): plan the input again.
 */
export class DamagedPlanError extends MbulkError {
  static override readonly errorName: string = 'DamagedPlanError';
  readonly code = 'damaged_plan';
  constructor(
    readonly runId: string,
    readonly file: string,
    /** What is wrong, e.g. `plan.changes is missing`. */
    readonly problem: string,
  ) {
    super('usage', `run ${runId}: damaged plan, plan again (${file}: ${problem}); nothing was written`);
  }
}

/**
 * The envelope every plan.json shares: its `kind` (the discriminator), the format `version`, and the
 * kind's own fields. Objects are loose: fields a newer minor writer adds are kept, not stripped.
 */
export function planFileSchema<Kind extends string, Shape extends z.ZodRawShape>(kind: Kind, shape: Shape) {
  return z.looseObject({ kind: z.literal(kind), version: z.literal(1), ...shape });
}

/** What is wrong with a value against a plan schema, in words (`plan.changes is missing`), or undefined. */
export function planProblem(schema: z.ZodType, value: unknown): string | undefined {
  const parsed = parsePlan(schema, value);
  return 'problem' in parsed ? parsed.problem : undefined;
}

/** The plan as its schema reads it, or what is wrong with it. */
function parsePlan<T>(schema: z.ZodType<T>, value: unknown): { plan: T } | { problem: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'not a JSON object' };
  const parsed = schema.safeParse(value);
  if (parsed.success) return { plan: parsed.data };
  const issue = parsed.error.issues[0];
  if (issue === undefined) return { problem: 'not a plan' };
  const path = issue.path.map(String).join('.');
  if (path === 'kind') {
    return { problem: `its kind is ${JSON.stringify(getPath(value, ['kind']))}, not a plan of this kind` };
  }
  if (path === 'version') {
    return {
      problem: `its format version is ${JSON.stringify(getPath(value, ['version']))}, which this mbulk does not read`,
    };
  }
  if (issue.code === 'invalid_type' && getPath(value, issue.path) === undefined) {
    return { problem: `${path} is missing` };
  }
  return { problem: `${path || 'the plan'}: ${issue.message}` };
}

function getPath(value: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = Reflect.get(at, key);
  }
  return at;
}

/**
 * Reads a run's plan.json and validates it with the kind's schema: the one place a plan file
 * becomes a typed value (the schema's output: loose objects keep fields it does not list). A
 * damaged or foreign plan throws DamagedPlanError (exit 2).
 */
export function readPlanFile<T>(run: RunDirectory, schema: z.ZodType<T>): T {
  const parsed = parsePlan(schema, run.readPlan());
  if ('problem' in parsed) throw new DamagedPlanError(run.id, run.file('plan'), parsed.problem);
  return parsed.plan;
}

import { z } from 'zod';

/** `RunInput`: the run's copy of its input (see run-input.ts). */
export const RunInputSchema = z.looseObject({ original: z.string(), copy: z.string() });

/** A row issue as planners write it (mapping/row-issue.ts). */
export const RowIssueSchema = z.looseObject({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  sheet: z.string(),
  rowNumber: z.number(),
});

/** The store a plan was made for: its id at least. */
export const StoreSchema = z.looseObject({ id: z.string(), name: z.string() });

/** A list of loose objects carrying these fields at least. */
export function listOf<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.array(z.looseObject(shape));
}

/** The row issues a plan keeps (mapping and plan problems), as written by the planners. */
export const RowIssuesSchema = z.array(RowIssueSchema);

import { z } from 'zod';
import type { ColumnUse } from '../../formats/source-format.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import type { RunInput } from '../../apply/run-input.js';

/**
 * Schemas of the parts plan files share. Each is typed against the value the planners write
 * (`z.ZodType<RunInput>`): the compiler checks that it validates every field of it.
 */

/** `RunInput`: the run's copy of its input (see run-input.ts). */
export const RunInputSchema: z.ZodType<RunInput> = z.looseObject({
  original: z.string(),
  copy: z.string(),
  sheet: z.string().optional(),
  headerRow: z.number().int().min(1).optional(),
});

/** A row issue as planners write it (mapping/row-issue.ts). */
export const RowIssueSchema: z.ZodType<RowIssue> = z.looseObject({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  sheet: z.string(),
  rowNumber: z.number(),
  column: z.string().exactOptional(),
  header: z.string().exactOptional(),
  value: z.string().exactOptional(),
});

/** The row issues a plan keeps (mapping and plan problems), as written by the planners. */
export const RowIssuesSchema = z.array(RowIssueSchema);

/** The store a plan was made for: its id and name, and the settings the kind reads. */
export function storeSchema<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.looseObject({ id: z.string(), name: z.string(), ...shape });
}

/** What a column of another platform's export became (`field`), or why it is not imported. */
export const ColumnUseSchema: z.ZodType<ColumnUse> = z.looseObject({
  header: z.string(),
  letter: z.string(),
  field: z.string().nullable(),
  note: z.string().exactOptional(),
});

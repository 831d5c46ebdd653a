import { z } from 'zod';
import { fromZodError, invalidParam } from '../sandbox-error.js';

/** Query of a list request (the URL's search params). */
export type ListQuery = URLSearchParams;

/** A request body parsed by `schema`, or the API's 400 naming the first bad field. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success) throw fromZodError(r.error, body);
  return r.data;
}

/** An enum query parameter (undefined when absent), or a 400 naming it. */
export function enumFilter<T extends string>(
  query: ListQuery,
  name: string,
  schema: z.ZodType<T>,
): T | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const r = schema.safeParse(raw);
  if (!r.success) throw invalidParam(name, `${name}: unknown value ${JSON.stringify(raw)}`);
  return r.data;
}

/** A date-time query parameter in epoch ms (undefined when absent), or a 400 naming it. */
export function dateFilter(query: ListQuery, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const ms = Date.parse(raw);
  if (!z.iso.datetime({ offset: true }).safeParse(raw).success || Number.isNaN(ms)) {
    throw invalidParam(name, `${name} must be an ISO 8601 date-time`);
  }
  return ms;
}

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RunDirectory } from '../apply/run-directory.js';

/**
 * The hash of a run's plan.json as written (sha256, hex): `plan_import` returns it and `apply_plan`
 * applies a run only when given it, so only a plan the assistant has seen, unchanged since, is written.
 */
export function planHash(run: RunDirectory): string {
  return createHash('sha256')
    .update(readFileSync(run.file('plan')))
    .digest('hex');
}

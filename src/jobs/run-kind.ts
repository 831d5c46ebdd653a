import { loadJobKind } from './registry.js';
import type { RunKind } from './runner/run-kind-of.js';

export type { DriftedEntity } from './runner/job-definition.js';
export type { RunKind } from './runner/run-kind-of.js';

/** The run kinds, loaded lazily (a kind's module is only imported when its run is applied). */
export function runKind(kind: string): Promise<RunKind | undefined> {
  return loadJobKind(kind);
}

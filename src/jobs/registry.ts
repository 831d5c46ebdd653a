import { runKindOf, type RunKind } from './runner/run-kind-of.js';

/**
 * The job kinds by the name run.json records, each loaded lazily: a kind's modules are imported
 * only when one of its runs is applied. To add a kind, add its line here (see docs/architecture.md, the runner).
 */
const KINDS: Record<string, () => Promise<RunKind>> = {
  stock: async () => runKindOf((await import('./stock/stock-job.js')).stockJob),
  products: async () => runKindOf((await import('./products/product-job.js')).productJob),
  customers: async () => runKindOf((await import('./customers/customer-job.js')).customerJob),
  messages: async () => runKindOf((await import('./messages/message-job.js')).messageJob),
  templates: async () => runKindOf((await import('./templates/template-job.js')).templateJob),
  rollback: async () => runKindOf((await import('./rollback/rollback-job.js')).rollbackJob),
};

/** The kinds a run can be of (`mbulk apply` applies these). */
export function jobKinds(): string[] {
  return Object.keys(KINDS);
}

/** The kind's RunKind (loaded now), or undefined for a kind no job defines. */
export async function loadJobKind(kind: string): Promise<RunKind | undefined> {
  const load = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
  return load ? load() : undefined;
}

import { MbulkError } from '../errors/mbulk-error.js';

/** One problem of a fleet file: where it is (file, line, store, field) and what is wrong. */
export interface FleetFileProblem {
  file: string;
  line?: number;
  /** The store it is in: its index in `stores` and, when it has a valid one, its name. */
  store?: { index: number; name?: string };
  /** The field, as a path under the store or the file: `token_env`, `options.max-changes`. */
  field?: string;
  message: string;
}

/** `stores.yaml:7: stores[1] (kl-east): token_env: is missing`. */
export function formatFleetProblem(p: FleetFileProblem): string {
  const where = [`${p.file}${p.line !== undefined ? `:${p.line}` : ''}`];
  if (p.store !== undefined)
    where.push(`stores[${p.store.index}]${p.store.name !== undefined ? ` (${p.store.name})` : ''}`);
  if (p.field !== undefined) where.push(p.field);
  return `${where.join(': ')}: ${p.message}`;
}

/**
 * A fleet file that cannot be run as written (unreadable, not YAML, a field missing or wrong, an
 * option the job does not take): nothing was run. Exit code 2. The message lists every problem.
 */
export class FleetFileError extends MbulkError {
  static override readonly errorName: string = 'FleetFileError';
  constructor(readonly problems: readonly FleetFileProblem[]) {
    const lines = problems.map(formatFleetProblem);
    super(
      'usage',
      lines.length === 1
        ? `${lines[0] ?? ''} (nothing was run)`
        : `${lines.length} problems in ${problems[0]?.file ?? 'the fleet file'}; nothing was run:\n  ${lines.join('\n  ')}`,
    );
  }
}

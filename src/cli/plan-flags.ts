import { isAbsolute, resolve } from 'node:path';

import { shellQuote } from './run-hints.js';

/** Options whose value is a file: recorded as an absolute path, so `m.csv` and `./m.csv` agree. */
const FILE_OPTIONS: ReadonlySet<string> = new Set(['map-file', 'category-map', 'options']);

/**
 * The options of a command line that shaped its plan (`--images`, `--missing`, `--map`…), by
 * name, as parsed (defaults included; an option not given and without a default is null). Kept in
 * run.json (`plan_flags`): an `import … --apply` that continues the unfinished run of the same
 * input compares its own with them, and refuses when they differ (the run continues as it was
 * planned, never with other options).
 */
export function planFlagsOf(
  args: Readonly<Record<string, unknown>>,
  names: readonly string[],
  cwd: string,
): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const name of names) flags[name] = normalised(name, args[name] ?? null, cwd);
  return flags;
}

/**
 * One spelling of an option's value: a file's path made absolute (from the directory the command
 * ran in), a repeated option's values in order (`--stock-unknown a=zero --stock-unknown untracked`
 * is the same choice given in either order).
 */
function normalised(name: string, value: unknown, cwd: string): unknown {
  if (FILE_OPTIONS.has(name) && typeof value === 'string' && value !== '' && !isAbsolute(value))
    return resolve(cwd, value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).sort();
  return value;
}

/** An option as it is written on a command line (`--images first-10`, `--no-category`). */
function written(name: string, value: unknown): string {
  if (value === undefined || value === null) return `--${name} not given`;
  if (value === true) return `--${name}`;
  if (value === false) return `--no-${name}`;
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  return values.map((v) => `--${name} ${shellQuote(String(v))}`).join(' ');
}

/**
 * Where a run's recorded plan options and this command line's differ: `--images first-10 (this
 * command: --images not given)` for each, or none. Only the options the run recorded are compared: a run
 * planned through the library or the MCP server recorded those its options give in the CLI's words
 * (jobs/runner/run-plan-flags.ts), one planned by an older mbulk none (it differs in nothing).
 */
export function planFlagsDiffer(
  recorded: Readonly<Record<string, unknown>> | undefined,
  now: Readonly<Record<string, unknown>>,
): string[] {
  if (recorded === undefined) return [];
  const differ: string[] = [];
  for (const name of Object.keys(recorded).sort()) {
    if (JSON.stringify(recorded[name] ?? null) === JSON.stringify(now[name] ?? null)) continue;
    differ.push(`${written(name, recorded[name])} (this command: ${written(name, now[name])})`);
  }
  return differ;
}

import yargs, { type Argv } from 'yargs';
import type { CheckJobOptions, FleetKind } from '../fleet/fleet-file.js';
import { optionFlags, type JobOptions } from '../fleet/job-options.js';
import type { CommandContext, GlobalArgs } from './command-context.js';
import { registerImport } from './commands/import.js';

/** Thrown by the parser's middleware once the arguments passed validation: the handler never runs. */
class Accepted {
  constructor(readonly argv: Readonly<Record<string, unknown>>) {}
}

/**
 * The global options a fleet's `options:` may set, typed as main.ts declares them (the other
 * globals, --json, --base-url, --token-file…, are the fleet's own).
 */
function withGlobals(parser: Argv): Argv {
  return parser
    .option('concurrency', { type: 'number' })
    .option('rps', { type: 'number' })
    .option('insecure-http', { type: 'boolean' })
    .option('verbose', { type: 'boolean' });
}

/**
 * Parses `mbulk import KIND FEED FLAGS` with the import commands' own yargs definitions, strictly,
 * and stops before the handler: a problem message, or undefined when the flags are accepted.
 */
function problemOf(kind: FleetKind, flags: readonly string[]): string | undefined {
  let parser = withGlobals(yargs())
    .strict()
    .help(false)
    .version(false)
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new Error(message ?? 'not accepted');
    })
    .middleware((argv) => {
      throw new Accepted(argv);
    }) as unknown as Argv<GlobalArgs>;
  // The handlers are never reached: a context is needed only to register them.
  parser = registerImport(parser, {} as CommandContext, () => {});
  try {
    parser.parseSync(['import', kind, 'FEED', ...flags]);
  } catch (outcome) {
    if (outcome instanceof Accepted) {
      const nan = Object.entries(outcome.argv).find(([, v]) => typeof v === 'number' && Number.isNaN(v));
      return nan === undefined ? undefined : 'must be a number';
    }
    const message = outcome instanceof Error ? outcome.message : String(outcome);
    if (/^Unknown argument/.test(message))
      return `is not an option of mbulk import ${kind} (mbulk import ${kind} --help lists them)`;
    return message.replace(/\s*\n\s*/g, ' ');
  }
  return undefined;
}

/**
 * A fleet's `options:` checked against what `mbulk import KIND` accepts, one option at a time (so
 * each problem names its option): an unknown option, a value outside its choices, a number that
 * is not one.
 */
export const checkImportOptions: CheckJobOptions = (kind, options: JobOptions) => {
  const problems: { option: string; message: string }[] = [];
  for (const [option, value] of Object.entries(options)) {
    const message = problemOf(kind, optionFlags({ [option]: value }));
    if (message !== undefined) problems.push({ option, message });
  }
  return problems;
};

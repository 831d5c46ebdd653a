import type { Argv } from 'yargs';
import { CliError } from './cli-error.js';
import { ExitCode } from './exit-code.js';

/**
 * The check of a command that previews by default and writes only with `--apply` (import, runs
 * rollback, messages send, templates create) and takes `--dry-run` to say so in a script: both
 * flags together are a usage error (exit 2), never silently one or the other.
 */
export function applyOrDryRun(verb = 'write'): (argv: Record<string, unknown>) => true {
  return (argv) => {
    if (argv['dry-run'] === true && argv['apply'] === true)
      throw new CliError(
        `--apply and --dry-run contradict each other: drop --dry-run to ${verb}, --apply to preview only`,
        ExitCode.Usage,
      );
    return true;
  };
}

/** `--dry-run` (see applyOrDryRun): preview only, which is what happens without `--apply`. */
export function dryRunOption<T>(y: Argv<T>, verb = 'write'): Argv<T> {
  return y
    .option('dry-run', {
      type: 'boolean',
      describe: `Preview only, ${verb} nothing (what happens without --apply; says so in a script)`,
    })
    .check(applyOrDryRun(verb), true) as unknown as Argv<T>;
}

import { CliError } from './cli-error.js';
import { ExitCode } from './exit-code.js';

/**
 * `--header-env NAME`: the feed header `Name: value` held by the environment variable NAME. The
 * value stays off the command line, which `ps` shows to every user of the machine (the process's
 * environment is readable by its owner only); `mbulk fleet run` passes each store's `header_env`
 * this way. A variable that is unset or empty is a usage error naming the variable, never a value.
 */
export function headersFromEnv(names: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  return (names ?? []).map((name) => {
    const value = env[name];
    if (value === undefined || value.trim() === '') {
      throw new CliError(
        `--header-env ${name}: that environment variable is not set or empty`,
        ExitCode.Usage,
      );
    }
    return value;
  });
}

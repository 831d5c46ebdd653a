import type { Argv } from 'yargs';

/** The `--notify-url` / `--notify-on` options of every command that ends a run. */
export interface NotifyArgs {
  'notify-url'?: string | undefined;
  'notify-on'?: string | undefined;
}

/** Adds `--notify-url` and `--notify-on` to a command (imports, apply, runs resume|rollback, …). */
export function notifyOptions<T>(y: Argv<T>): Argv<T> {
  return y
    .option('notify-url', {
      type: 'string',
      describe:
        "POST the run's JSON summary (with a `text` line for chat webhooks) here when the run ends (default: none)",
    })
    .option('notify-on', {
      type: 'string',
      choices: ['failure', 'always'],
      default: 'always',
      describe: 'When to notify: always, or only when the run did not end with exit 0',
    }) as unknown as Argv<T>;
}

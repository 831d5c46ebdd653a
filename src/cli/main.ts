import yargs, { type Argv } from 'yargs';
import { stopWithParent } from '../fleet/stop-with-parent.js';
import { CliError, InterruptedError } from './cli-error.js';
import type { CommandContext, GlobalArgs } from './command-context.js';
import { ExitCode } from './exit-code.js';
import { Output } from './output.js';
import { commandsFor } from './commands/index.js';
import { describeError } from './describe-error.js';
import { explainUnknownArguments } from './flag-suggestions.js';
import { GLOBAL_GROUP } from './help-groups.js';
import { packageVersion } from './package-version.js';

export interface MainOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
}

/** Runs the CLI and resolves to the exit code. The only place that maps errors to exit codes. */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const json = argv.includes('--json');
  const abort = new AbortController();
  const out = new Output({
    json,
    signal: abort.signal,
    env: options.env ?? process.env,
    ...(options.stdout ? { stdout: options.stdout as never } : {}),
    ...(options.stderr ? { stderr: options.stderr as never } : {}),
  });
  // First Ctrl-C or SIGTERM: stop taking new writes, let those in flight finish and be journaled
  // (the command then exits 130 saying how to resume). A second one quits at once: every write
  // is journaled before it is sent, so the run stays resumable.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!abort.signal.aborted) {
      out.notice(stoppingNotice(out.progress.inFlight));
      abort.abort(new InterruptedError(signal));
      return;
    }
    const resume =
      ctx.run === undefined
        ? 'mbulk runs list'
        : (ctx.run.continueWith?.() ?? `mbulk runs resume ${ctx.run.id}`);
    out.urgent(`\nmbulk: quitting at once; the journal holds what was written; continue with: ${resume}`);
    process.exit(ExitCode.Interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A store of `mbulk fleet run` stops with its fleet: once the fleet is gone (even SIGKILLed, which
  // it cannot pass on), as on its first SIGTERM: writes in flight finish and are journaled, exit 130.
  const stopWatching = stopWithParent(options.env ?? process.env, () => {
    if (abort.signal.aborted) return;
    out.notice(`the process that started this one is gone: ${stoppingNotice(out.progress.inFlight, false)}`);
    abort.abort(new InterruptedError('parent gone'));
  });
  const ctx: CommandContext = {
    out,
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    signal: abort.signal,
    argv,
  };
  let code: number = ExitCode.Ok;
  try {
    const parser = await cliParser(argv, ctx, (c) => {
      code = c;
    });
    await parser.parseAsync(argv);
  } catch (error) {
    if (abort.signal.aborted || error instanceof InterruptedError) {
      // Stopped before any write of this session began (reading, planning, the drift check, the
      // prompt, where Ctrl-C is a keypress rather than a signal): a saved run stays as it was.
      const next = ctx.run?.continueWith?.();
      const run =
        ctx.run === undefined
          ? ''
          : next !== undefined
            ? ` · the run stays as it was; continue with: ${next}`
            : ` · the run stays as it was: mbulk runs show ${ctx.run.id}`;
      out.warn(`Interrupted: nothing was written${run}`);
      out.result({ ok: false, interrupted: true });
      return ExitCode.Interrupted;
    }
    const described = describeError(error, ctx.run);
    if (described.exitCode === ExitCode.Unreachable && ctx.apiSources !== undefined) {
      const { adviseApiError } = await import('./connection-advice.js');
      described.message = adviseApiError(error, ctx.apiSources) ?? described.message;
    }
    out.warn(`mbulk: ${described.message}`);
    out.result({ ok: false, error: described });
    code = described.exitCode;
  } finally {
    stopWatching();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return code;
}

/**
 * What the first Ctrl-C prints at once: how many writes it lets finish, and how to quit now (not
 * `atTerminal`: a store whose fleet is gone, which no one can press Ctrl-C for).
 */
export function stoppingNotice(inFlight: number | undefined, atTerminal = true): string {
  const writes =
    inFlight === undefined || inFlight === 0
      ? ''
      : `: letting ${inFlight} in-flight write${inFlight === 1 ? '' : 's'} finish`;
  return `stopping${writes}${atTerminal ? ' (Ctrl-C again to quit now)' : ', then exiting 130 (resumable)'}`;
}

/**
 * The parser of `argv`: the global options and the commands it names (all of them when it names
 * none). Handlers report their exit code through `setExit`. Exported for the help tests.
 */
export async function cliParser(
  argv: readonly string[],
  ctx: CommandContext,
  setExit: (code: number) => void,
): Promise<Argv<GlobalArgs>> {
  let parser: Argv<GlobalArgs> = yargs()
    .scriptName('mbulk')
    .usage(
      "$0 <command> [options]\n\nMove a store's data in bulk between spreadsheets and the Merchant API V2.",
    )
    .option('json', { type: 'boolean', default: false, describe: 'Print one JSON document on stdout' })
    .option('base-url', {
      type: 'string',
      describe: 'Merchant API base URL (default: $MERCHANT_API_URL, else the embedded sandbox)',
    })
    .option('token-file', {
      type: 'string',
      describe: 'Read the API token from this file (default: $MERCHANT_API_TOKEN)',
    })
    .option('token', { type: 'string', hidden: true, describe: 'API token (prefer $MERCHANT_API_TOKEN)' })
    .option('insecure-http', {
      type: 'boolean',
      default: false,
      describe: 'Allow plain http:// to a non-loopback host',
    })
    .option('sandbox-data', {
      type: 'string',
      describe:
        'State file of the sandbox, embedded or served by mbulk sandbox (which also takes --data) (default: $XDG_DATA_HOME/mbulk/sandbox.json, else ~/.local/share/mbulk/sandbox.json)',
    })
    .option('empty', {
      type: 'boolean',
      default: false,
      describe:
        'A sandbox state file that does not exist yet starts as an empty store (default: a copy of the sample store): rehearse a migration with --sandbox-data new.json --empty --currency USD',
    })
    .option('currency', {
      type: 'string',
      describe: "With --empty: the empty store's currency, ISO 4217 (default USD)",
    })
    .option('country', {
      type: 'string',
      describe: "With --empty: the empty store's country, ISO 3166 alpha-2 (default US)",
    })
    .option('concurrency', { type: 'number', default: 4, describe: 'Maximum requests in flight' })
    .option('rps', { type: 'number', describe: 'Ceiling on requests per second (default: none)' })
    .option('verbose', { type: 'boolean', default: false, describe: 'Log each request (never the token)' })
    .group(
      [
        'json',
        'base-url',
        'token-file',
        'insecure-http',
        'sandbox-data',
        'empty',
        'currency',
        'country',
        'concurrency',
        'rps',
        'verbose',
      ],
      GLOBAL_GROUP,
    )
    .demandCommand(1, 'Name a command; see mbulk --help.')
    .strict()
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version(packageVersion())
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((msg, err, y) => {
      if (err) throw err;
      // yargs hands its usage instance here: the options it describes are the command's flags.
      const known = Object.keys((y as unknown as { getDescriptions(): object }).getDescriptions());
      const text = explainUnknownArguments(msg ?? 'Invalid usage.', known);
      // The hint once: some messages (no command given) already carry it.
      throw new CliError(text.includes('mbulk --help') ? text : `${text} (see mbulk --help)`, ExitCode.Usage);
    }) as unknown as Argv<GlobalArgs>;
  for (const register of await Promise.all(commandsFor(argv).map((c) => c.load())))
    parser = register(parser, ctx, setExit);
  // After starting a command's handler, yargs renders that command's whole help text and keeps it
  // (cacheHelpMessage) for a showHelp/getHelp afterwards, which mbulk never calls: a third of an
  // in-process `mbulk import` went to measuring the help's string widths. `--help` is unchanged.
  // Guarded: a yargs whose internals moved keeps its own behaviour instead of failing every command.
  const usage = (parser as unknown as Partial<YargsInternals>).getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
  return parser;
}

/** The part of yargs' internals the parser above reaches (yargs 18, lib/usage.js). */
interface YargsInternals {
  getInternalMethods(): { getUsageInstance?(): { cacheHelpMessage?(): void } | undefined };
}

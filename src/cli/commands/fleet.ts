import type { Argv } from 'yargs';
import { DEFAULT_PARALLEL } from '../../fleet/default-parallel.js';
import { visibleText } from '../../sheets/visible-text.js';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { notifyOptions, type NotifyArgs } from '../notify-options.js';
import type { RegisterCommand } from './index.js';

interface FleetRunArgs extends GlobalArgs, NotifyArgs {
  file: string;
  /** Undefined: as the file's `apply:` says. */
  apply?: boolean | undefined;
  yes: boolean;
  parallel: number;
  'only-index'?: number | undefined;
  'fleet-dir'?: string | undefined;
}

/** `mbulk fleet run STORES.yaml`: one job, many stores, one summary. */
export async function fleetRun(args: FleetRunArgs, ctx: CommandContext): Promise<number> {
  const { join, relative, resolve } = await import('node:path');
  const { readFleetFile } = await import('../../fleet/fleet-file.js');
  const { fleetSelection, runFleet } = await import('../../fleet/run-fleet.js');
  const { fleetNotification, outcomesText, storeLine, countsText } =
    await import('../../fleet/fleet-summary.js');
  const { checkImportOptions } = await import('../check-import-options.js');
  const { confirmApply } = await import('../confirm.js');
  const { packageRoot } = await import('../target.js');
  const { describeError } = await import('../describe-error.js');
  const { sendNotification } = await import('../notify.js');
  const { CliError } = await import('../cli-error.js');
  const { ExitCode } = await import('../exit-code.js');
  const out = ctx.out;
  const notifyUrl = args['notify-url'];
  const notify =
    notifyUrl === undefined
      ? undefined
      : { url: notifyUrl, on: args['notify-on'] ?? 'always', command: 'fleet run' };
  try {
    // Global options that would apply to one store: each store's own go in the file, so that none
    // given here is silently not passed on.
    const given = (ctx.argv ?? []).find((a) =>
      /^--(no-)?(base-url|token-file|token|sandbox-data|concurrency|rps|insecure-http|verbose)(=|$)/.test(a),
    );
    if (given !== undefined) {
      const name = given.replace(/^--(no-)?/, '').replace(/=.*$/, '');
      throw new CliError(
        `--${name} is not an option of mbulk fleet run: ${/^(base-url|token-file|token|sandbox-data)$/.test(name) ? "each store's target is in the fleet file (base_url, token_env or token_file)" : `give it in the fleet file's options: (every store) or a store's options: (${name}: …)`}`,
        ExitCode.Usage,
      );
    }
    const fleet = readFleetFile(resolve(ctx.cwd, args.file), {
      shown: args.file,
      checkOptions: checkImportOptions,
    });
    const apply = args.apply ?? fleet.apply ?? false;
    const selection = { onlyIndex: args['only-index'], parallel: args.parallel };
    const count = fleetSelection(fleet, selection).stores.length;
    const stores = `${count} store${count === 1 ? '' : 's'}`;
    // --apply on the command line asks once for the whole fleet (--yes: not at all); `apply: true`
    // in the file is the unattended job's own setting.
    if (args.apply === true)
      await confirmApply(
        out,
        `Apply ${fleet.job} to ${stores}? Each store writes its plan without asking again.`,
        args.yes,
      );
    out.line(
      `Fleet: ${fleet.job} (${apply ? 'apply' : 'plan only'}) on ${stores}${count > 1 ? `, ${Math.min(args.parallel, count)} at a time` : ''}`,
    );
    const fleetDir = resolve(ctx.cwd, args['fleet-dir'] ?? join('.mbulk', 'fleet'));
    const summary = await runFleet({
      fleet,
      ...selection,
      apply,
      command: [process.execPath, join(packageRoot(), 'bin', 'mbulk.js')],
      fleetDir,
      cwd: ctx.cwd,
      env: ctx.env,
      signal: ctx.signal,
      // One line per store: a line feed in a message (a feed's file name, a sheet's text) is shown
      // as `\n`, not sent, so no store can print a line that looks like the fleet's own.
      onStoreEnd: (result, ended, total) => out.line(`[${ended}/${total}] ${visibleText(storeLine(result))}`),
    });

    const shown = (path: string | undefined): string =>
      path === undefined ? '' : relative(ctx.cwd, path) || '.';
    out.line();
    printTable(out, [
      ['#', 'store', 'outcome', 'exit', 'plan', 'run'],
      ...summary.stores.map((s) => [
        String(s.index),
        s.name,
        s.outcome,
        String(s.exitCode),
        countsText(s.counts),
        shown(s.runDir) || '-',
      ]),
    ]);
    for (const s of summary.stores)
      if (s.exitCode !== 0 && s.message !== undefined) out.warn(`${s.name}: ${visibleText(s.message)}`);
    out.line(`Review page: ${summary.reportHtml}`);
    out.line(`Summary: ${join(summary.fleetRunDir, 'summary.json')}`);
    out.line(`Fleet: ${outcomesText(summary.totals)}; exit ${summary.exitCode}`);
    if (apply && summary.stores.some((s) => s.exitCode === ExitCode.Interrupted))
      out.line(
        'To finish: run the same command again. Each interrupted store continues its run (nothing it wrote is written again), the stores not started start, and a store whose run finished is not run again.',
      );
    out.result(summary);
    if (notify !== undefined)
      await sendNotification(out, notify, summary.exitCode, fleetNotification(summary));
    return summary.exitCode;
  } catch (error) {
    // Nothing ran (a bad file, a declined confirmation…): an unattended job's owner hears of it too.
    if (notify !== undefined) {
      const described = describeError(error);
      await sendNotification(out, notify, described.exitCode, { ok: false, error: described });
    }
    throw error;
  }
}

/** Columns padded to their widest cell (the last one is not padded). */
function printTable(out: CommandContext['out'], table: readonly (readonly string[])[]): void {
  // Cells made visible before they are measured: a store name's escapes count in its width.
  const rows = table.map((row) => row.map((cell) => visibleText(cell)));
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  for (const row of rows) {
    out.line(
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    );
  }
}

export const registerFleet: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('fleet', 'Run one import for many stores, each with its own token and feed', (y) =>
    (y as unknown as Argv<GlobalArgs>)
      .command(
        'run <file>',
        'Run the job of STORES.yaml for each store listed there (one process per store), then print one combined summary',
        (s) =>
          notifyOptions(
            s
              .positional('file', {
                type: 'string',
                demandOption: true,
                describe:
                  'The fleet file (YAML): job, apply, options, stores (docs/operations.md, "Many stores")',
              })
              .option('apply', {
                type: 'boolean',
                describe:
                  "Write each store's plan (default: the file's apply:, else plan only); --no-apply plans only whatever the file says",
              })
              .option('yes', {
                type: 'boolean',
                default: false,
                describe: 'With --apply: do not ask for confirmation (needed without a terminal)',
              })
              .option('parallel', {
                type: 'number',
                default: DEFAULT_PARALLEL,
                describe:
                  'Stores run at once (each is its own process with its own rate limit and store lock)',
              })
              .option('only-index', {
                type: 'number',
                describe:
                  'Run only the store at this position of the file, counting from 0 (a Kubernetes Indexed Job: --only-index $(JOB_COMPLETION_INDEX))',
              })
              .option('fleet-dir', {
                type: 'string',
                describe:
                  "Where fleet runs (runs/<id>/: summary.json, report.html) and each store's runs (stores/<name>/runs/) go (default: .mbulk/fleet)",
              })
              .example('$0 fleet run stores.yaml', "plan every store's feed")
              .example(
                '$0 fleet run stores.yaml --apply --yes --json --notify-url https://hooks.example/…',
                'nightly, unattended',
              )
              .example('$0 fleet run stores.yaml --only-index 3', 'only stores[3] (the fourth)')
              .epilog(
                "Run again after an interrupt or a kill, the same command continues each store's unfinished run (nothing written twice), starts the stores not started, and does not run again a store whose run finished on the same feed (a delta feed applied: 'already applied by run R'). The stores stop with the fleet, even when it is killed. Exit code: 0 when every store ended 0, else the worst of theirs in the order 5 > 4 > 3 > 2 > 1 > 130 (a store not started counts as 130, a crashed one as 5). Each store's runs: FLEET-DIR/stores/NAME/runs.",
              ),
          ),
        async (argv) => {
          setExit(await fleetRun(argv as unknown as FleetRunArgs, ctx));
        },
      )
      .demandCommand(1, 'Name what to do: mbulk fleet run STORES.yaml'),
  );

import { resolve } from 'node:path';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import { applySavedRun, type ApplyArgs } from './apply.js';
import type { RegisterCommand } from './index.js';

interface RunsArgs extends GlobalArgs {
  run?: string;
  'runs-dir'?: string | undefined;
}

function root(args: RunsArgs, ctx: CommandContext): string {
  return resolve(ctx.cwd, args['runs-dir'] ?? '.mbulk/runs');
}

async function listCommand(args: RunsArgs, ctx: CommandContext): Promise<number> {
  const { listRuns, isRunLive } = await import('../../apply/run-directory.js');
  const runs = listRuns(root(args, ctx)).map((m) => ({
    ...m,
    status: m.status === 'applying' && !isRunLive(m) ? 'interrupted' : m.status,
  }));
  if (runs.length === 0) ctx.out.line('No runs yet.');
  for (const r of runs) {
    const counts = Object.entries(r.counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(' · ');
    ctx.out.line(`${r.id}  ${r.kind.padEnd(9)} ${r.status.padEnd(11)} ${counts}`);
  }
  ctx.out.result({ ok: true, runs });
  return ExitCode.Ok;
}

async function showCommand(args: RunsArgs, ctx: CommandContext): Promise<number> {
  const { openRun, isRunLive } = await import('../../apply/run-directory.js');
  const { existsSync, readFileSync } = await import('node:fs');
  const run = openRun(root(args, ctx), args.run ?? '');
  const meta = run.refresh();
  const status = meta.status === 'applying' && !isRunLive(meta) ? 'interrupted' : meta.status;
  const report = run.file('report');
  if (existsSync(report)) ctx.out.line(readFileSync(report, 'utf8'));
  else ctx.out.line(`${run.id}: ${meta.kind}, ${status}`);
  ctx.out.line(`Directory: ${run.dir}`);
  const files = (['plan', 'journal', 'results', 'failed', 'backup', 'report'] as const).filter((f) =>
    existsSync(run.file(f)),
  );
  ctx.out.result({ ok: true, run: { ...meta, status }, dir: run.dir, files: files.map((f) => run.file(f)) });
  return ExitCode.Ok;
}

/** `mbulk runs list|show RUN|resume RUN`. */
export const registerRuns: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('runs', 'List, show and resume import runs (.mbulk/runs)', (y) =>
    y
      .option('runs-dir', { type: 'string', describe: 'Where run directories are (default: .mbulk/runs)' })
      .command(
        'list',
        'List runs, oldest first',
        (s) => s,
        async (argv) => {
          setExit(await listCommand(argv as unknown as RunsArgs, ctx));
        },
      )
      .command(
        'show <run>',
        "Show a run's report, status and files",
        (s) => s.positional('run', { type: 'string', demandOption: true }),
        async (argv) => {
          setExit(await showCommand(argv as unknown as RunsArgs, ctx));
        },
      )
      .command(
        'resume <run>',
        'Continue an interrupted run: operations already done are not repeated',
        (s) =>
          s
            .positional('run', { type: 'string', demandOption: true })
            .option('yes', { type: 'boolean', default: false, describe: 'Do not ask for confirmation' }),
        async (argv) => {
          setExit(await applySavedRun(argv as unknown as ApplyArgs, ctx, true));
        },
      )
      .demandCommand(1, 'Name a runs command: list, show or resume.'),
  );

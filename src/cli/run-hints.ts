import type { CommandContext, GlobalArgs } from './command-context.js';

/**
 * The commands a hint names ("To write this plan: …", "continue with: …") are commands that do
 * exactly that: they carry the options of this command line that say where it writes and where
 * its runs are (`mbulk apply RUN` refuses a run planned against another target, and finds no run
 * in another runs directory), and an `import … --apply` form is this very command line with
 * `--apply`, so every option that shaped the plan (`--sheet`, `--options`, `--missing`…) is there.
 */

/** The options naming where a command writes and where its runs are, as given (and no token). */
export function targetFlags(args: GlobalArgs & { 'runs-dir'?: string | undefined }): string {
  const flags: string[] = [];
  if (args['base-url'] !== undefined) flags.push('--base-url', args['base-url']);
  if (args['token-file'] !== undefined) flags.push('--token-file', args['token-file']);
  if (args['sandbox-data'] !== undefined) flags.push('--sandbox-data', args['sandbox-data']);
  if (args['insecure-http'] === true) flags.push('--insecure-http');
  if (args['runs-dir'] !== undefined) flags.push('--runs-dir', args['runs-dir']);
  return flags.map((f) => ` ${shellQuote(f)}`).join('');
}

/** `mbulk apply RUN` with the options naming where it writes and where its runs are. */
export function applyRunCommand(
  runId: string,
  args: GlobalArgs & { 'runs-dir'?: string | undefined },
): string {
  return `mbulk apply ${runId}${targetFlags(args)}`;
}

/** `mbulk runs resume RUN` with the options naming where it writes and where its runs are. */
export function resumeRunCommand(
  runId: string,
  args: GlobalArgs & { 'runs-dir'?: string | undefined },
): string {
  return `mbulk runs resume ${runId}${targetFlags(args)}`;
}

/** Flags of `mbulk apply` an import takes too: a plan the import allowed is allowed when applied. */
const APPLY_ALLOWANCES = ['allow-price-jumps', 'allow-deletes', 'strict-check'] as const;

/**
 * The command that continues a run stopped before this session wrote (Ctrl-C at the prompt, during
 * planning or the drift check): `mbulk apply RUN` while the run is only planned (with the flags of
 * this command line it needs: `--allow-price-jumps`, `--allow-deletes`, `--strict-check`), else
 * `mbulk runs resume RUN`; both with the options naming where it writes and where its runs are.
 */
export function continueRunCommand(
  run: { id: string; refresh(): { status: string } },
  args: GlobalArgs & { 'runs-dir'?: string | undefined } & Partial<
      Record<(typeof APPLY_ALLOWANCES)[number], boolean | undefined>
    >,
): string {
  let planned = false;
  try {
    planned = run.refresh().status === 'planned';
  } catch {
    // run.json unreadable: a resume checks the run before it writes.
  }
  if (!planned) return resumeRunCommand(run.id, args);
  const allowances = APPLY_ALLOWANCES.filter((f) => args[f] === true)
    .map((f) => ` --${f}`)
    .join('');
  return `${applyRunCommand(run.id, args)}${allowances}`;
}

/** Options whose value is a secret: a command line holding one is never shown again. */
const SECRET = /^--(token|header|authorization)(=|$)/i;

/**
 * This command line with `--apply` (and without `--dry-run`): it plans the same input with every
 * option this plan was made with. Undefined when it cannot be shown (a secret on it, or no command
 * line known): the `mbulk apply RUN` form is then the only one.
 */
export function sameCommandApplying(ctx: CommandContext): string | undefined {
  const argv = ctx.argv;
  if (argv === undefined || argv.length === 0) return undefined;
  if (argv.some((a) => SECRET.test(a))) return undefined;
  const kept = argv.filter((a) => !/^--(dry-run|no-apply|apply=false)$/.test(a) && a !== '--apply');
  return `mbulk ${[...kept, '--apply'].map(shellQuote).join(' ')}`;
}

/**
 * The hint after a dry run: `mbulk apply RUN` first (it writes the plan just shown, after checking
 * the store did not change), then this command with `--apply` (it plans again, with the same options).
 */
export function writeThisPlanHint(
  verb: string,
  runId: string,
  args: GlobalArgs & { 'runs-dir'?: string | undefined },
  ctx: CommandContext,
  /** Flags the apply needs besides (` --allow-price-jumps`), added to both forms. */
  needs = '',
): string {
  const again = sameCommandApplying(ctx);
  return `To ${verb} this plan: ${applyRunCommand(runId, args)}${needs}${again === undefined ? '' : ` (or plan again and ${verb}: ${again}${needs})`}`;
}

/** A word as a POSIX shell reads it: plain when it can be, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

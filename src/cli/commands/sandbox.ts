import type { Argv } from 'yargs';
import { CliError } from '../cli-error.js';
import type { CommandContext, GlobalArgs } from '../command-context.js';
import { ExitCode } from '../exit-code.js';
import type { RegisterCommand } from './index.js';

interface ServeArgs extends Pick<GlobalArgs, 'sandbox-data' | 'empty' | 'currency' | 'country'> {
  port: number;
  /**
   * The state file's first name on this command (docs/architecture.md, Boundaries): an alias of the
   * global --sandbox-data.
   */
  data?: string | undefined;
  reset: boolean;
  seed?: string | undefined;
  generate?: string | undefined;
  token?: string | undefined;
  latency?: number | undefined;
  'rate-limit'?: number | undefined;
  'fail-rate'?: number | undefined;
  'drop-rate'?: number | undefined;
  'fault-seed'?: number | undefined;
  strict: boolean;
  host: string;
}

interface ReviewArgs extends GlobalArgs {
  name: string;
  status: string;
  category?: string | undefined;
  reason?: string | undefined;
  url?: string | undefined;
}

/** Parses `products=N,customers=N,orders=N[,seed=N]`. */
export function parseGenerateSpec(spec: string): {
  products?: number;
  customers?: number;
  orders?: number;
  seed?: number;
} {
  const out: Record<string, number> = {};
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const m = /^(products|customers|orders|seed)=([0-9]+)$/.exec(part);
    if (m === null) {
      throw new CliError(
        `--generate: expected products=N,customers=N,orders=N (got "${part}")`,
        ExitCode.Usage,
      );
    }
    out[m[1] as string] = Number(m[2]);
  }
  return out;
}

function nonNegative(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
    throw new CliError(`--${name} must be a number >= 0`, ExitCode.Usage);
  }
}

function probability(name: string, value: number | undefined): void {
  if (value !== undefined && !(value >= 0 && value <= 1)) {
    throw new CliError(`--${name} must be between 0 and 1`, ExitCode.Usage);
  }
}

/** The active faults, for the banner: "latency 150 ms ±50%", "rate limit 5/s"… */
function describeFaults(args: ServeArgs): string[] {
  const faults: string[] = [];
  if (args.latency) faults.push(`latency ${args.latency} ms ±50%`);
  if (args['rate-limit'] !== undefined) faults.push(`rate limit ${args['rate-limit']}/s`);
  if (args['fail-rate']) faults.push(`fail rate ${args['fail-rate']}`);
  if (args['drop-rate']) faults.push(`drop rate ${args['drop-rate']}`);
  if (faults.length > 0 && args['fault-seed'] !== undefined) faults.push(`fault seed ${args['fault-seed']}`);
  if (args.strict) faults.push('strict (no batch, inventory list or get-one routes)');
  return faults;
}

async function serve(args: ServeArgs, ctx: CommandContext): Promise<number> {
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
    throw new CliError('--port must be an integer from 0 to 65535', ExitCode.Usage);
  }
  nonNegative('latency', args.latency);
  if (args['rate-limit'] !== undefined && !(args['rate-limit'] > 0)) {
    throw new CliError('--rate-limit must be a number above 0', ExitCode.Usage);
  }
  probability('fail-rate', args['fail-rate']);
  probability('drop-rate', args['drop-rate']);
  const generate = args.generate === undefined ? undefined : parseGenerateSpec(args.generate);
  // Never taken from MERCHANT_API_TOKEN: that may be a real store's token, and it is printed below.
  const token = args.token;

  const { startSandbox } = await import('../../sandbox/server.js');
  const { resolve } = await import('node:path');
  const { existsSync, rmSync } = await import('node:fs');
  const { defaultSandboxDataFile } = await import('../user-data-dir.js');
  const { emptyStoreOf, checkEmptyStore } = await import('../empty-store.js');
  const empty = emptyStoreOf(args);
  if (empty !== undefined && (args.seed !== undefined || args.generate !== undefined)) {
    throw new CliError(
      `--empty starts an empty store; ${args.seed !== undefined ? '--seed' : '--generate'} fills one: give one of them`,
      ExitCode.Usage,
    );
  }
  // The same store the other commands use when no API URL is set, whatever the directory.
  // `--sandbox-data` is its name on every command; `--data` (its first name here) is the same.
  const given = args['sandbox-data'] ?? args.data;
  if (args['sandbox-data'] !== undefined && args.data !== undefined && args['sandbox-data'] !== args.data) {
    throw new CliError(
      `--data is another name for --sandbox-data; give the state file once (got ${args.data} and ${args['sandbox-data']})`,
      ExitCode.Usage,
    );
  }
  const dataFile = given !== undefined ? resolve(ctx.cwd, given) : defaultSandboxDataFile(ctx.env);
  if (existsSync(dataFile)) {
    if (args.reset) rmSync(dataFile);
    else if (args.seed !== undefined || args.generate !== undefined) {
      const what = args.seed !== undefined ? `--seed ${args.seed}` : '--generate';
      throw new CliError(
        `the sandbox already has a state in ${dataFile}, so ${what} would be ignored; add --reset to replace that state, or drop ${what} to serve it`,
        ExitCode.Usage,
      );
    }
  }
  let sandbox;
  try {
    sandbox = await startSandbox({
      port: args.port,
      host: args.host,
      dataFile,
      ...(args.seed !== undefined ? { seed: resolve(ctx.cwd, args.seed) } : {}),
      ...(generate !== undefined ? { generate } : {}),
      ...(empty !== undefined ? { empty } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(args.latency !== undefined ? { latencyMs: args.latency } : {}),
      ...(args['rate-limit'] !== undefined ? { rateLimitRps: args['rate-limit'] } : {}),
      ...(args['fail-rate'] !== undefined ? { failRate: args['fail-rate'] } : {}),
      ...(args['drop-rate'] !== undefined ? { dropRate: args['drop-rate'] } : {}),
      ...(args['fault-seed'] !== undefined ? { faultSeed: args['fault-seed'] } : {}),
      strict: args.strict,
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new CliError(`port ${args.port} is already in use`, ExitCode.Usage);
    if (e.code === 'ENOENT') throw new CliError(`file not found: ${e.path ?? ''}`, ExitCode.Usage);
    throw new CliError((e as Error).message, ExitCode.Usage);
  }
  if (empty !== undefined) {
    try {
      checkEmptyStore(
        empty,
        sandbox.store.getMe(),
        dataFile,
        'add --reset to replace it with an empty store',
      );
    } catch (error) {
      await sandbox.close();
      throw error;
    }
  }
  const counts = sandbox.store.counts();
  const me = sandbox.store.getMe();
  ctx.out.line(`Sandbox listening on ${sandbox.url}`);
  ctx.out.line(`  MERCHANT_API_URL=${sandbox.url}`);
  ctx.out.line(`  MERCHANT_API_TOKEN=${sandbox.token}`);
  ctx.out.line(`  state: ${dataFile}`);
  const faults = describeFaults(args);
  ctx.out.line(`  faults: ${faults.length > 0 ? faults.join(', ') : 'none'}`);
  ctx.out.line(
    `  store: ${me.name} (${me.currency}, ${me.country}): ${counts.products} products, ${counts.customers} customers, ${counts.orders} orders, ${counts.templates} templates`,
  );
  ctx.out.line('Press Ctrl+C to stop.');
  // --json: the one document is printed as soon as the sandbox listens, so a script can read the
  // URL and token while it serves (nothing more goes to stdout).
  ctx.out.result({
    ok: true,
    url: sandbox.url,
    token: sandbox.token,
    state: dataFile,
    faults,
    store: { name: me.name, currency: me.currency, country: me.country },
    counts,
  });
  await new Promise<void>((done) => {
    if (ctx.signal.aborted) return done();
    ctx.signal.addEventListener('abort', () => done(), { once: true });
  });
  await sandbox.close();
  ctx.out.line('Sandbox stopped; state saved.');
  return ExitCode.Ok;
}

async function review(args: ReviewArgs, ctx: CommandContext): Promise<number> {
  // Which sandbox: --url, else the configured API URL, else the embedded one (started here, with
  // its state saved when done) — so the review works wherever the other commands are pointed.
  let base = args.url ?? args['base-url'] ?? ctx.env['MERCHANT_API_URL'];
  let close = async (): Promise<void> => {};
  if (base === undefined) {
    const { resolveTarget } = await import('../target.js');
    const target = await resolveTarget(args, ctx);
    base = target.baseUrl;
    close = () => target.close();
  }
  try {
    return await sendReview(base, args, ctx);
  } finally {
    await close();
  }
}

async function sendReview(base: string, args: ReviewArgs, ctx: CommandContext): Promise<number> {
  const url = `${base.replace(/\/+$/, '')}/__sandbox/templates/${encodeURIComponent(args.name)}/review`;
  const body: Record<string, unknown> = { status: args.status };
  if (args.category !== undefined) body['category'] = args.category;
  if (args.reason !== undefined) body['rejected_reason'] = args.reason;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new CliError(
      `cannot reach the sandbox at ${base}: ${(error as Error).message}`,
      ExitCode.Unreachable,
    );
  }
  const payload = (await res.json()) as { error?: { message?: string }; status?: string; category?: string };
  if (!res.ok)
    throw new CliError(`review failed: ${payload.error?.message ?? res.status}`, ExitCode.RowsFailed);
  ctx.out.line(`Template ${args.name}: ${payload.status ?? ''} (${payload.category ?? ''})`);
  ctx.out.result({ ok: true, template: payload });
  return ExitCode.Ok;
}

/** `mbulk sandbox`: serve the Merchant API sandbox; `mbulk sandbox review NAME`: review a template. */
export const registerSandbox: RegisterCommand = (parser, ctx, setExit) =>
  parser.command('sandbox', 'Run the local Merchant API sandbox', (y: Argv<GlobalArgs>) =>
    y
      .command(
        '$0',
        'Serve the sandbox until interrupted (state saved on exit)',
        (s) =>
          s
            .option('port', { type: 'number', default: 4010, describe: 'Port (0: any free port)' })
            .option('host', { type: 'string', default: '127.0.0.1', describe: 'Interface to listen on' })
            .option('data', {
              type: 'string',
              hidden: true,
              describe: 'The state file: another name for --sandbox-data',
            })
            .option('seed', {
              type: 'string',
              describe: 'Snapshot file to start from; refused when a state exists, unless --reset',
            })
            .option('generate', {
              type: 'string',
              describe:
                'Synthetic store products=N,customers=N,orders=N; refused when a state exists, unless --reset',
            })
            .option('reset', {
              type: 'boolean',
              default: false,
              describe:
                'Delete the existing state first (then --seed, --generate or --empty; without them an empty USD store)',
            })
            .option('latency', { type: 'number', describe: 'Added latency per request in ms (±50% jitter)' })
            .option('rate-limit', {
              type: 'number',
              describe: 'Requests per second before 429 (default: none)',
            })
            .option('fail-rate', { type: 'number', describe: 'Probability 0..1 of a 500 before acting' })
            .option('drop-rate', {
              type: 'number',
              describe: 'Probability 0..1 of closing the connection (half before, half after acting)',
            })
            .option('fault-seed', { type: 'number', describe: 'Seed of the fault PRNG (default 1)' })
            .option('strict', {
              type: 'boolean',
              default: false,
              describe: 'Answer 404 on endpoints the spec does not show (batch, inventory list, get-one)',
            }),
        async (argv) => {
          setExit(await serve(argv as unknown as ServeArgs, ctx));
        },
      )
      .command(
        'review <name>',
        'Review a message template on a running sandbox (approve, reject, re-categorise)',
        (s) =>
          s
            .positional('name', { type: 'string', demandOption: true, describe: 'Template name' })
            .option('status', {
              type: 'string',
              default: 'APPROVED',
              describe: 'New status (APPROVED, REJECTED, PAUSED…)',
            })
            .option('category', { type: 'string', describe: 'Re-categorise (MARKETING, UTILITY)' })
            .option('reason', { type: 'string', describe: 'rejected_reason' })
            .option('url', {
              type: 'string',
              describe:
                'Sandbox base URL (default: --base-url / $MERCHANT_API_URL, else the embedded sandbox)',
            }),
        async (argv) => {
          setExit(await review(argv as unknown as ReviewArgs, ctx));
        },
      ),
  );

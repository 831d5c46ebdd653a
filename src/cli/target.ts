import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MerchantClient, MerchantClientOptions } from '../api/merchant-client.js';
import type { RateProgress } from '../api/rate-controller.js';
import { refusePlainHttp } from '../api/refuse-plain-http.js';
import { CliError } from './cli-error.js';
import type { CommandContext, GlobalArgs } from './command-context.js';
import { ExitCode } from './exit-code.js';
import { defaultSandboxDataFile } from './user-data-dir.js';

/** Where commands send their requests, decided from flags and environment, before any I/O. */
export type TargetConfig =
  | { kind: 'remote'; baseUrl: string; token: string }
  | { kind: 'embedded'; dataFile: string; describe: string };

/** A live target: a client, what to call it in output, and how to let go of it. */
export interface ResolvedTarget {
  client: MerchantClient;
  /** `local sandbox (.mbulk/sandbox.json)` or the base URL (never credentials). */
  describe: string;
  embedded: boolean;
  baseUrl: string;
  /** Closes the client and, for the embedded sandbox, stops it and flushes its state. */
  close(): Promise<void>;
}

export interface ResolveTargetOptions {
  onProgress?: (progress: RateProgress) => void;
  /** Print "Target: local sandbox (...)" as the first human line when embedded. Default true. */
  announce?: boolean;
  /** Extra client options (timeouts, retries, paths...). */
  client?: Partial<Omit<MerchantClientOptions, 'baseUrl' | 'token'>>;
}

function readToken(args: GlobalArgs, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (args.token !== undefined && args.token.trim() !== '') return args.token.trim();
  const file = args['token-file'];
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(resolve(cwd, file), 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable';
      throw new CliError(`--token-file ${file}: cannot read it (${code})`, ExitCode.Usage);
    }
    const token = text.trim();
    if (token === '') throw new CliError(`--token-file ${file} is empty`, ExitCode.Usage);
    return token;
  }
  const fromEnv = env['MERCHANT_API_TOKEN']?.trim();
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/**
 * Decides the target without touching the network: `--base-url` or `$MERCHANT_API_URL` with a token
 * (`--token`, `--token-file`, `$MERCHANT_API_TOKEN`, in that order); with no base URL, the embedded
 * sandbox (state in `--sandbox-data`, default `$XDG_DATA_HOME/mbulk/sandbox.json` or
 * `~/.local/share/mbulk/sandbox.json`). Refuses plain http:// to a
 * non-loopback host unless `--insecure-http` (the token would travel in clear).
 */
export function resolveTargetConfig(args: GlobalArgs, env: NodeJS.ProcessEnv, cwd: string): TargetConfig {
  const rawUrl = (args['base-url'] ?? env['MERCHANT_API_URL'] ?? '').trim();
  if (rawUrl === '') {
    // One store per user whatever the directory (an absolute path, so the banner says which).
    const given = args['sandbox-data'];
    const dataFile = given !== undefined ? resolve(cwd, given) : defaultSandboxDataFile(env);
    return { kind: 'embedded', dataFile, describe: `local sandbox (${dataFile})` };
  }
  if (args.empty === true) {
    // A rehearsal must never reach the real store: --empty is for the sandbox only.
    throw new CliError(
      `--empty starts an empty sandbox store, but the target is ${safeUrlText(rawUrl)} (${args['base-url'] !== undefined ? '--base-url' : '$MERCHANT_API_URL'}); unset it to rehearse in the sandbox`,
      ExitCode.Usage,
    );
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new CliError(`base URL is not a URL: ${safeUrlText(rawUrl)}`, ExitCode.Usage);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CliError(`base URL must be http(s): ${safeUrlText(rawUrl)}`, ExitCode.Usage);
  }
  if (url.username !== '' || url.password !== '') {
    throw new CliError(
      'base URL must not carry credentials; give the token with $MERCHANT_API_TOKEN',
      ExitCode.Usage,
    );
  }
  // The client refuses it too (MerchantClient, for a library caller); said here before the token is read.
  refusePlainHttp(url, args['insecure-http']);
  const token = readToken(args, env, cwd);
  if (token === undefined) {
    throw new CliError(
      'no API token: set MERCHANT_API_TOKEN or pass --token-file FILE (or leave the base URL unset to use the local sandbox)',
      ExitCode.Usage,
    );
  }
  const baseUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  return { kind: 'remote', baseUrl, token };
}

function safeUrlText(text: string): string {
  return text.replace(/\/\/[^@/]*@/, '//***@').slice(0, 200);
}

/** The package root (where package.json and samples/ live), found from this module's location. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        const name = (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown }).name;
        if (name === 'merchant-bulk') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('merchant-bulk: package root not found');
    dir = parent;
  }
}

/** `samples/store.json` of the installed package (not of the working directory). */
export function sampleStorePath(): string {
  return join(packageRoot(), 'samples', 'store.json');
}

/**
 * Resolves the target of a command and makes its client. With no base URL it starts the embedded
 * sandbox in-process on a loopback port (seeded from the package's samples/store.json on first use)
 * and, unless told otherwise, prints the target as the first human line.
 */
export async function resolveTarget(
  args: GlobalArgs,
  ctx: CommandContext,
  options: ResolveTargetOptions = {},
): Promise<ResolvedTarget> {
  const config = resolveTargetConfig(args, ctx.env, ctx.cwd);
  const { MerchantClient } = await import('../api/merchant-client.js');
  const clientOptions: Partial<MerchantClientOptions> = {
    maxConcurrency: args.concurrency,
    rps: args.rps,
    onWarning: (message) => ctx.out.warn(`mbulk: ${message}`),
    ...(args.verbose ? { logger: (line: string) => ctx.out.warn(line) } : {}),
    ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
    ...options.client,
  };
  if (!Number.isInteger(args.concurrency) || args.concurrency < 1) {
    throw new CliError('--concurrency must be an integer >= 1', ExitCode.Usage);
  }
  if (args.rps !== undefined && !(args.rps > 0))
    throw new CliError('--rps must be a number above 0', ExitCode.Usage);

  if (config.kind === 'remote') {
    const client = new MerchantClient({
      ...clientOptions,
      baseUrl: config.baseUrl,
      token: config.token,
      insecureHttp: args['insecure-http'],
    });
    const { apiSources } = await import('./connection-advice.js');
    ctx.apiSources = apiSources(args, ctx.env, config.baseUrl);
    return {
      client,
      describe: config.baseUrl,
      embedded: false,
      baseUrl: config.baseUrl,
      close: () => client.close(),
    };
  }

  const { startSandbox } = await import('../sandbox/server.js');
  const { emptyStoreOf, checkEmptyStore } = await import('./empty-store.js');
  // A new state starts as a copy of the sample store, or with --empty as an empty store.
  const empty = emptyStoreOf(args);
  const seed = sampleStorePath();
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      port: 0,
      dataFile: config.dataFile,
      ...(empty !== undefined ? { empty } : existsSync(seed) ? { seed } : {}),
    });
  } catch (error) {
    throw new CliError(`cannot start the ${config.describe}: ${(error as Error).message}`, ExitCode.Usage);
  }
  if (empty !== undefined) {
    try {
      checkEmptyStore(
        empty,
        sandbox.store.getMe(),
        config.dataFile,
        'give another --sandbox-data file to rehearse in, or delete that one',
      );
    } catch (error) {
      await sandbox.close();
      throw error;
    }
  }
  const client = new MerchantClient({ ...clientOptions, baseUrl: sandbox.url, token: sandbox.token });
  if (options.announce !== false) ctx.out.line(`Target: ${config.describe}`);
  return {
    client,
    describe: config.describe,
    embedded: true,
    baseUrl: sandbox.url,
    close: async () => {
      await client.close();
      await sandbox.close();
    },
  };
}

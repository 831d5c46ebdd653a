import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { StateFileError } from '../errors/state-file-error.js';
import { writeFileAtomic } from '../files/atomic-file.js';
import { CliError } from './cli-error.js';
import { ExitCode } from './exit-code.js';
import { isLoopbackHost } from './target.js';

/**
 * `mbulk import stock https://erp.example/stock.csv`: the feed is downloaded to a local file the
 * import reads (and keeps in its run directory, as for local files). Its ETag / Last-Modified and
 * content hash are remembered per source, so a feed that did not change since the last successful
 * apply is reported and skipped. Header values (`--header 'Authorization: …'`) are sent, never
 * printed, remembered or journaled.
 */

/** Whether an import's FILE argument is a URL. */
export function isRemoteSource(file: string): boolean {
  return /^https?:\/\//i.test(file);
}

/** What is remembered of one source (keyed by a hash of its URL: the URL may carry secrets). */
interface SourceMemory {
  etag?: string | undefined;
  lastModified?: string | undefined;
  sha256: string;
  appliedAt: string;
}

export interface RemoteSource {
  /** The downloaded copy (absent when unchanged). */
  file?: string;
  unchanged: boolean;
  /** The URL without query string or credentials, for output and the run's input name. */
  shown: string;
  /** Remembers this version as applied (call after a successful apply). */
  remember(): void;
}

export interface FetchSourceOptions {
  url: string;
  /** `Name: value` strings. */
  headers: readonly string[];
  /** Skip the "unchanged" check. */
  force: boolean;
  /** The JSON file where sources are remembered. */
  stateFile: string;
  insecureHttp: boolean;
  signal?: AbortSignal;
}

/** `Name: value` → [name, value]; a usage error (without the value) when malformed. */
export function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon > 0 ? text.slice(0, colon).trim() : '';
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
    throw new CliError(
      `--header must look like 'Name: value' (got a header without a valid name)`,
      ExitCode.Usage,
    );
  }
  return [name, text.slice(colon + 1).trim()];
}

/** The remembered sources ({} when the file does not exist yet); a damaged file is a StateFileError. */
function readMemory(stateFile: string): Record<string, SourceMemory> {
  let text: string;
  try {
    text = readFileSync(stateFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const damaged = (why: string, cause?: unknown): StateFileError =>
    new StateFileError(
      stateFile,
      `${stateFile} is damaged (${why}); delete it: every feed is then downloaded and imported as new`,
      { cause },
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw damaged(`not valid JSON: ${(error as Error).message}`, error);
  }
  if (!isRecord(value) || !Object.values(value).every(isSourceMemory)) throw damaged('not a sources file');
  return value as Record<string, SourceMemory>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSourceMemory(value: unknown): value is SourceMemory {
  const optionalText = (v: unknown) => v === undefined || typeof v === 'string';
  return (
    isRecord(value) &&
    typeof value['sha256'] === 'string' &&
    typeof value['appliedAt'] === 'string' &&
    optionalText(value['etag']) &&
    optionalText(value['lastModified'])
  );
}

export async function fetchRemoteSource(options: FetchSourceOptions): Promise<RemoteSource> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new CliError('the source is not a valid URL', ExitCode.Usage);
  }
  const shown = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.username !== '' || url.password !== '') {
    throw new CliError(
      `${shown}: put credentials in --header 'Authorization: …', not in the URL`,
      ExitCode.Usage,
    );
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !options.insecureHttp) {
    throw new CliError(
      `refusing plain http:// to ${url.host}: the feed (and any --header) would travel unencrypted. Use https://, or --insecure-http if you really mean it.`,
      ExitCode.Usage,
    );
  }
  const headers = new Headers();
  for (const h of options.headers) headers.set(...parseHeader(h));
  const key = createHash('sha256').update(url.href).digest('hex');
  const memory = readMemory(options.stateFile);
  const known = options.force ? undefined : memory[key];
  if (known?.etag !== undefined) headers.set('if-none-match', known.etag);
  if (known?.lastModified !== undefined) headers.set('if-modified-since', known.lastModified);

  let response: Response;
  try {
    response = await fetch(url, {
      headers,
      redirect: 'follow',
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `cannot download ${shown}: ${cause?.code ?? cause?.message ?? (error as Error).message}; check the URL and this machine's network`,
      ExitCode.Usage,
    );
  }
  const none: RemoteSource = { unchanged: true, shown, remember: () => {} };
  if (response.status === 304) return none;
  if (!response.ok) {
    const hint =
      response.status === 401 || response.status === 403
        ? "; check the --header 'Authorization: …' value"
        : '';
    throw new CliError(
      `cannot download ${shown}: the server answered ${response.status}${hint}`,
      ExitCode.Usage,
    );
  }
  const body = Buffer.from(await response.arrayBuffer());
  const sha256 = createHash('sha256').update(body).digest('hex');
  // A server without validators: the same bytes are the same feed.
  if (known !== undefined && known.sha256 === sha256) return none;

  const name = basename(url.pathname) || 'feed';
  const file = join(mkdtempSync(join(tmpdir(), 'mbulk-feed-')), extname(name) === '' ? `${name}.csv` : name);
  writeFileSync(file, body);
  const etag = response.headers.get('etag') ?? undefined;
  const lastModified = response.headers.get('last-modified') ?? undefined;
  return {
    file,
    unchanged: false,
    shown,
    remember: () => {
      const latest = readMemory(options.stateFile);
      latest[key] = { etag, lastModified, sha256, appliedAt: new Date().toISOString() };
      mkdirSync(dirname(options.stateFile), { recursive: true });
      writeFileAtomic(options.stateFile, `${JSON.stringify(latest, null, 2)}\n`);
    },
  };
}

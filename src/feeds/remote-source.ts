import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { refusePlainHttp } from '../api/refuse-plain-http.js';
import { UsageError } from '../errors/usage-error.js';
import { downloadFeed, type Downloaded } from './download-feed.js';
import { DEFAULT_DOWNLOAD_TIMEOUT_MS, DEFAULT_MAX_DOWNLOAD } from './download-limits.js';
import { FeedError } from './feed-error.js';
import { readFeedMemory, rememberFeed } from './feed-memory.js';

/**
 * `mbulk import stock https://erp.example/stock.csv`: the feed is downloaded to a local file the
 * import reads (and keeps in its run directory, as for local files). Its ETag / Last-Modified and
 * content hash are remembered per source, so a feed that did not change since the last successful
 * apply is reported and skipped. Header values (`--header 'Authorization: …'`) are sent to the
 * feed's own origin only, never printed, remembered or journaled. The download itself (streamed,
 * under a byte cap and deadlines, redirects within the origin) is download-feed.ts.
 */

/** Whether an import's FILE argument is a URL. */
export function isRemoteSource(file: string): boolean {
  return /^https?:\/\//i.test(file);
}

export interface RemoteSource {
  /** The downloaded copy (absent when unchanged). */
  file?: string;
  unchanged: boolean;
  /** The URL without query string or credentials, for output and the run's input name. */
  shown: string;
  /** When unchanged: when this version was applied, and by which run (when known). */
  previous?: { appliedAt: string; run?: string | undefined } | undefined;
  /** Remembers this version as applied by `run` (call after a successful apply). */
  remember(run?: string): void;
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
  /** `--max-download`, bytes (default 2 GiB). */
  maxBytes?: number | undefined;
  /** `--download-timeout`, ms (default 1 h): the whole download; the idle limit is this, at most 1 min. */
  timeoutMs?: number | undefined;
  /** `--follow-redirects`: follow a redirect to another origin (without the user's headers). */
  crossOriginRedirects?: boolean | undefined;
  signal?: AbortSignal;
}

/**
 * `Name: value` → [name, value]; a usage error naming the header, never showing its value, when
 * malformed. A value is one line of Latin-1 text (tab, printable ASCII, U+0080–U+00FF), which is
 * what HTTP carries: a line break would be refused by the HTTP client with the value in its
 * message, or worse, start a header of its own.
 */
export function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon > 0 ? text.slice(0, colon).trim() : '';
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
    throw new UsageError(
      `--header must look like 'Name: value' (got a header without a valid name)`,
      'header',
    );
  }
  // Only HTTP's own blanks are trimmed: String.trim() would also drop a trailing CR or U+2028.
  const value = text.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
  if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) {
    throw new UsageError(
      `--header ${name}: the value holds a line break, a control character or a character outside Latin-1; a header value is one line of text (the value is not shown)`,
      'header',
    );
  }
  return [name, value];
}

/** Every `--header` parsed (usage errors as parseHeader's), names lowercase, the last of a name winning. */
export function parseHeaders(texts: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const text of texts) {
    const [name, value] = parseHeader(text);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

export async function fetchRemoteSource(options: FetchSourceOptions): Promise<RemoteSource> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new FeedError('the source is not a valid URL');
  }
  const shown = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.username !== '' || url.password !== '') {
    throw new FeedError(`${shown}: put credentials in --header 'Authorization: …', not in the URL`);
  }
  refusePlainHttp(url, options.insecureHttp, 'the feed (and any --header)');
  const headers = parseHeaders(options.headers);
  const key = createHash('sha256').update(url.href).digest('hex');
  const memory = readFeedMemory(options.stateFile);
  const known = options.force ? undefined : memory[key];
  const conditional: Record<string, string> = {};
  if (known?.etag !== undefined) conditional['if-none-match'] = known.etag;
  if (known?.lastModified !== undefined) conditional['if-modified-since'] = known.lastModified;

  const none: RemoteSource = {
    unchanged: true,
    shown,
    ...(known !== undefined ? { previous: { appliedAt: known.appliedAt, run: known.run } } : {}),
    remember: () => {},
  };
  const name = basename(url.pathname) || 'feed';
  const folder = mkdtempSync(join(tmpdir(), 'mbulk-feed-'));
  const file = join(folder, extname(name) === '' ? `${name}.csv` : name);
  let downloaded: Downloaded;
  try {
    downloaded = await downloadFeed({
      url,
      headers,
      conditional,
      dest: file,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_DOWNLOAD,
      timeoutMs: options.timeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS,
      crossOriginRedirects: options.crossOriginRedirects === true,
      insecureHttp: options.insecureHttp,
      signal: options.signal,
    });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  // A server without validators: the same bytes are the same feed.
  if (downloaded.status === 304 || (known !== undefined && known.sha256 === downloaded.sha256)) {
    rmSync(folder, { recursive: true, force: true });
    return none;
  }
  const { etag, lastModified, sha256 } = downloaded;
  return {
    file,
    unchanged: false,
    shown,
    remember: (run) => {
      rememberFeed(options.stateFile, key, {
        etag,
        lastModified,
        sha256,
        appliedAt: new Date().toISOString(),
        run,
      });
    },
  };
}

/**
 * Downloads a sheet once, for a caller that plans it at once (MCP `plan_import` of a URL): every
 * rule of a feed download (https only, size and time limits, redirects within the origin, no
 * credentials sent), without the "unchanged since" check. Returns the downloaded file; the caller
 * removes its folder once planned (the run keeps its own copy).
 */
export async function downloadSheet(
  url: string,
  options: { stateFile: string; signal?: AbortSignal | undefined },
): Promise<string> {
  const remote = await fetchRemoteSource({
    url,
    headers: [],
    force: true,
    stateFile: options.stateFile,
    insecureHttp: false,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  if (remote.file === undefined) throw new FeedError(`${remote.shown}: nothing was downloaded`);
  return remote.file;
}

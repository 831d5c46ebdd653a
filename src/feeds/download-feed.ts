import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { createAgent } from '../api/transport.js';
import { isLoopbackHost } from '../api/refuse-plain-http.js';
import { formatDuration, formatSize, MAX_IDLE_MS } from './download-limits.js';
import { FeedError } from './feed-error.js';

/**
 * Downloads a feed to a file, streaming: the body goes to DEST as it arrives (memory stays at a
 * chunk, whatever the body's size), hashed on the way, and the download stops with a usage error
 * (FeedError, exit 2) naming the limit when the body grows past `maxBytes` (`--max-download`), when the whole
 * download takes longer than `timeoutMs` (`--download-timeout`), or when the server stays silent
 * (no answer, no byte) for the idle limit (`timeoutMs`, at most a minute).
 *
 * Redirects are followed by hand, at most MAX_REDIRECTS: never from https:// to plain http://, never
 * to plain http:// off loopback without `--insecure-http`, and to another origin (scheme, host,
 * port) only with `crossOriginRedirects` (`--follow-redirects`), and then without the user's
 * headers (`--header`) or the conditional ones: from the first change of origin on, nothing the user
 * gave for the feed's own server is sent.
 */
export interface DownloadOptions {
  url: URL;
  /** The user's `--header` values, for the feed's own origin only. */
  headers: Readonly<Record<string, string>>;
  /** If-None-Match / If-Modified-Since, for the feed's own origin only. */
  conditional: Readonly<Record<string, string>>;
  dest: string;
  maxBytes: number;
  timeoutMs: number;
  crossOriginRedirects: boolean;
  insecureHttp: boolean;
  signal?: AbortSignal | undefined;
}

export type Downloaded =
  | { status: 304 }
  | {
      status: 200;
      sha256: string;
      bytes: number;
      etag?: string | undefined;
      lastModified?: string | undefined;
    };

/** Redirects followed before giving up (fetch follows 20; a feed needs one or two). */
export const MAX_REDIRECTS = 5;

/** `https://host:port` and nothing else of a URL: what messages name (paths and queries may hold secrets). */
export function originOf(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

export async function downloadFeed(options: DownloadOptions): Promise<Downloaded> {
  const idleMs = Math.min(MAX_IDLE_MS, options.timeoutMs);
  const agent = createAgent(1, {
    connectMs: Math.min(10_000, idleMs),
    headersMs: idleMs,
    bodyMs: idleMs,
  });
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const first = options.url;
  const shown = `${originOf(first)}${first.pathname}`;
  try {
    let url = first;
    let ownOrigin = true;
    for (let redirects = 0; ; redirects++) {
      const response = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: ownOrigin ? { ...options.headers, ...options.conditional } : {},
        signal,
      });
      const location = response.headers['location'];
      if (response.statusCode >= 300 && response.statusCode < 400 && response.statusCode !== 304) {
        discard(response);
        if (typeof location !== 'string') {
          throw new FeedError(
            `cannot download ${shown}: the server answered ${response.statusCode} without a Location`,
          );
        }
        if (redirects >= MAX_REDIRECTS) {
          throw new FeedError(`cannot download ${shown}: more than ${MAX_REDIRECTS} redirects`);
        }
        const next = nextUrl(url, location, shown, options);
        if (next.origin !== first.origin) ownOrigin = false;
        url = next;
        continue;
      }
      if (response.statusCode === 304) {
        discard(response);
        return { status: 304 };
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        discard(response);
        const hint =
          response.statusCode === 401 || response.statusCode === 403
            ? "; check the --header 'Authorization: …' value"
            : '';
        throw new FeedError(`cannot download ${shown}: the server answered ${response.statusCode}${hint}`);
      }
      return await saveBody(response, shown, options);
    }
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof FeedError) throw error;
    throw describeFailure(error, shown, deadline.aborted, idleMs, options.timeoutMs);
  } finally {
    void agent.destroy().catch(() => {});
  }
}

/** Drops an answer's body unread (destroying it emits an error no one else listens to). */
function discard(response: Dispatcher.ResponseData): void {
  response.body.on('error', () => {});
  response.body.destroy();
}

/** Where a redirect leads, or a usage error when it may not be followed. */
function nextUrl(from: URL, location: string, shown: string, options: DownloadOptions): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new FeedError(`cannot download ${shown}: the server redirected to an invalid URL`);
  }
  const to = originOf(next);
  if (next.protocol !== 'https:' && next.protocol !== 'http:') {
    throw new FeedError(`cannot download ${shown}: the server redirected to a ${next.protocol} URL`);
  }
  if (from.protocol === 'https:' && next.protocol === 'http:') {
    throw new FeedError(
      `refusing the redirect of ${shown} from https:// down to plain http:// (${to}): the feed would travel unencrypted; ask for the feed's https:// address`,
    );
  }
  if (next.protocol === 'http:' && !isLoopbackHost(next.hostname) && !options.insecureHttp) {
    throw new FeedError(
      `refusing the redirect of ${shown} to plain http:// (${to}): the feed would travel unencrypted. Use https://, or --insecure-http if you really mean it.`,
    );
  }
  if (next.origin !== options.url.origin && !options.crossOriginRedirects) {
    throw new FeedError(
      `${shown} redirects to another origin, ${to}: not followed. Import from that address directly, or add --follow-redirects to follow it (your --header values are never sent to another origin)`,
    );
  }
  return next;
}

/** Streams an answer's body to DEST, hashing it and holding it to the byte cap. */
async function saveBody(
  response: Dispatcher.ResponseData,
  shown: string,
  options: DownloadOptions,
): Promise<Downloaded> {
  const tooLarge = () =>
    new FeedError(
      `cannot download ${shown}: it is larger than the --max-download limit of ${formatSize(options.maxBytes)}; raise --max-download SIZE if the feed is really that large`,
    );
  const length = Number(response.headers['content-length']);
  if (Number.isFinite(length) && length > options.maxBytes) {
    discard(response);
    throw tooLarge();
  }
  const hash = createHash('sha256');
  let bytes = 0;
  const file = await open(options.dest, 'wx', 0o600);
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) {
        discard(response);
        throw tooLarge();
      }
      hash.update(chunk);
      await file.write(chunk);
    }
  } finally {
    await file.close();
  }
  const header = (name: string) => {
    const value = response.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    status: 200,
    sha256: hash.digest('hex'),
    bytes,
    etag: header('etag'),
    lastModified: header('last-modified'),
  };
}

/** A usage error naming the limit that stopped the download, or what went wrong on the way. */
function describeFailure(
  error: unknown,
  shown: string,
  pastDeadline: boolean,
  idleMs: number,
  timeoutMs: number,
): FeedError {
  if (pastDeadline) {
    return new FeedError(
      `cannot download ${shown}: it did not finish within the --download-timeout of ${formatDuration(timeoutMs)}; raise --download-timeout if the feed is slow but alive`,
    );
  }
  const code = (error as { code?: unknown }).code;
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return new FeedError(
      `cannot download ${shown}: the server sent nothing for ${formatDuration(idleMs)} (the idle limit: --download-timeout, at most 1 min)`,
    );
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason =
    typeof code === 'string' ? code : (cause?.code ?? cause?.message ?? (error as Error).message);
  return new FeedError(`cannot download ${shown}: ${reason}; check the URL and this machine's network`);
}

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Listen } from './local-servers.js';

/** A secret the feed tests send in headers and look for everywhere it must not be. */
export const FEED_SECRET = 'feed-key-5d1e0b';

/** A one-row stock feed. */
export const FEED_CSV = 'sku,quantity\nTEE-LIN-SND-S,31\n';

/** `--header` options carrying FEED_SECRET, as an API key and as a bearer token. */
export const SECRET_HEADERS = [
  '--header',
  `X-Api-Key: ${FEED_SECRET}`,
  '--header',
  `Authorization: Bearer ${FEED_SECRET}`,
];

/** A feed server: its base URL and the headers of each request it got, in order. */
export interface RecordingServer {
  url: string;
  seen: IncomingHttpHeaders[];
}

/**
 * For a test file of feeds: `recording(handler)` starts a loopback server (through `listen`, so it
 * is closed after the test) that records each request's headers and answers with `handler`.
 */
export function recordingServers(
  listen: Listen,
): (handler: (res: ServerResponse, path: string) => void) => Promise<RecordingServer> {
  return async (handler) => {
    const seen: IncomingHttpHeaders[] = [];
    const url = await listen(
      createServer((req, res) => {
        seen.push(req.headers);
        handler(res, req.url ?? '/');
      }),
    );
    return { url, seen };
  };
}

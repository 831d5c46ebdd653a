import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoreSnapshot } from '../schema/index.js';
import { DEFAULT_TOKEN, SandboxApp } from './app.js';
import { readSnapshotFile, readStateFile, StateSaver, validateSnapshot } from './persistence.js';
import type { RequestLogEntry } from './request-log.js';
import { SandboxStore, type SandboxState } from './store.js';
import { ProductLoad } from './tables/product-load.js';

export interface SandboxOptions {
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Interface (default 127.0.0.1). */
  host?: string;
  /** Bearer token accepted (default `sandbox-token`). */
  token?: string;
  /** State file: loaded on start when it exists, saved atomically after changes and on close. */
  dataFile?: string;
  /** Initial store when `dataFile` does not exist yet: a snapshot object or a snapshot file path. */
  seed?: StoreSnapshot | string;
  /** Initial synthetic store when `dataFile` does not exist and no `seed` is given. */
  generate?: { products?: number; customers?: number; orders?: number; seed?: number; currency?: string };
  /**
   * The currency and country of the empty store started when there is no state file, seed or
   * generator (default USD, US): `mbulk sandbox --empty --currency MYR --country MY`.
   */
  empty?: { currency?: string; country?: string };
  /** Latency added to each /api/v2 request in ms, ±50% jitter (default 0). */
  latencyMs?: number;
  /** Token-bucket rate limit in requests per second (default: none). */
  rateLimitRps?: number;
  /** Probability of a 500 api_error before acting (default 0). */
  failRate?: number;
  /** Probability of closing the connection without a response, half before / half after acting (default 0). */
  dropRate?: number;
  /** 404 on the endpoints the spec does not show (batch, inventory list, get-one) (default false). */
  strict?: boolean;
  /** Seed of the fault PRNG (default 1). */
  faultSeed?: number;
  /** Debounce of state saves in ms (default 50). */
  saveDelayMs?: number;
  /** The rate limit's clock in ms (default performance.now): tests drive the bucket with a fake one. */
  now?: () => number;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  token: string;
  store: SandboxStore;
  app: SandboxApp;
  requestLog(): RequestLogEntry[];
  clearRequestLog(): void;
  /** Waits for pending state writes (close() also does it). */
  flush(): Promise<void>;
  /** Stops listening, closes connections and flushes state. */
  close(): Promise<void>;
}

/**
 * The initial state from the options: the data file if it exists, else the seed, else the
 * generator, else an empty store. `fromFile` says whether it came from the data file.
 */
export async function loadInitialState(
  options: Pick<SandboxOptions, 'dataFile' | 'seed' | 'generate'>,
): Promise<{ state: SandboxState | undefined; productLoad?: ProductLoad; fromFile: boolean }> {
  // Products read from a file or generated go straight into their compact form (ProductLoad).
  const productLoad = new ProductLoad();
  if (options.dataFile !== undefined) {
    const state = await readStateFile(options.dataFile, productLoad);
    if (state !== null) return { state, productLoad, fromFile: true };
  }
  if (typeof options.seed === 'string') {
    return {
      state: await readSnapshotFile(options.seed, undefined, productLoad),
      productLoad,
      fromFile: false,
    };
  }
  if (options.seed !== undefined) return { state: validateSnapshot(options.seed, 'seed'), fromFile: false };
  if (options.generate !== undefined) {
    const { generateStoreStreamed } = await import('./generator.js');
    const state = generateStoreStreamed(options.generate, (p) => productLoad.add(p));
    return { state, productLoad, fromFile: false };
  }
  return { state: undefined, fromFile: false };
}

/** Builds a store from the same options as startSandbox (no server): for msw tests or embedding. */
export async function createSandboxStore(
  options: Pick<SandboxOptions, 'dataFile' | 'seed' | 'generate'> & { baseUrl?: string } = {},
): Promise<SandboxStore> {
  const { state, productLoad } = await loadInitialState(options);
  return new SandboxStore({
    ...(state !== undefined ? { state } : {}),
    ...(productLoad !== undefined ? { productLoad } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the sandbox on a loopback port. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const { state, productLoad, fromFile } = await loadInitialState(options);
  const store = new SandboxStore(
    state !== undefined
      ? { state, ...(productLoad !== undefined ? { productLoad } : {}) }
      : options.empty !== undefined
        ? { empty: options.empty }
        : {},
  );
  const app = new SandboxApp(store, {
    token: options.token ?? DEFAULT_TOKEN,
    ...(options.strict !== undefined ? { strict: options.strict } : {}),
    ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    ...(options.rateLimitRps !== undefined ? { rateLimitRps: options.rateLimitRps } : {}),
    ...(options.failRate !== undefined ? { failRate: options.failRate } : {}),
    ...(options.dropRate !== undefined ? { dropRate: options.dropRate } : {}),
    ...(options.faultSeed !== undefined ? { faultSeed: options.faultSeed } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  const saver =
    options.dataFile === undefined ? null : new StateSaver(store, options.dataFile, options.saveDelayMs);
  if (saver !== null) {
    store.onChange = () => saver.schedule();
    if (!fromFile) saver.schedule();
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      try {
        const body = await readBody(req);
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const out = await app.handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers, body });
        if (out.drop !== undefined) {
          req.socket.destroy();
          return;
        }
        // One buffer with a content-length: no chunked encoding, one write.
        const payload = typeof out.body === 'string' ? Buffer.from(out.body, 'utf8') : out.body;
        res.writeHead(out.status, { ...out.headers, 'content-length': String(payload.byteLength) });
        res.end(payload);
      } catch {
        req.socket.destroy();
      }
    })();
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' || host.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${hostPart}:${address.port}`;
  store.baseUrl = url;

  let closed: Promise<void> | null = null;
  return {
    url,
    token: app.token,
    store,
    app,
    requestLog: () => app.requestLog(),
    clearRequestLog: () => app.clearRequestLog(),
    flush: async () => {
      await saver?.flush();
    },
    close: () => {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        store.onChange = null;
        await saver?.flush();
      })();
      return closed;
    },
  };
}

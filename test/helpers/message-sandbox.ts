import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach } from 'vitest';
import { MerchantClient } from '../../src/api/merchant-client.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';

const SAMPLE_STORE = join(import.meta.dirname, '../../samples/store.json');

/** A recipients sheet: rows as CSV, CRLF line ends. */
export function csv(rows: string[][]): string {
  return `${Papa.unparse(rows)}\r\n`;
}

/** A run's results.csv, read with papaparse (not through merchant-bulk). */
export function readResults(file: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

/** The message sends the sandbox got (the witness of what reached customers). */
export function sends(s: RunningSandbox): ReturnType<RunningSandbox['requestLog']> {
  return s.requestLog().filter((e) => e.method === 'POST' && e.path.startsWith('/api/v2/messages'));
}

/** `n` distinct Malaysian mobile numbers, written as people do (national format). */
export function phones(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const digits = String(i).padStart(6, '0');
    return `012-5${digits.slice(0, 2)} ${digits.slice(2)}`;
  });
}

export interface MessageSandbox {
  /** The sandbox, seeded with samples/store.json. */
  s: RunningSandbox;
  /** A client of it, retrying fast. */
  client: MerchantClient;
  /** This test's scratch directory. */
  dir: string;
  /** The runs directory in `dir`. */
  runsRoot: string;
}

/**
 * For a test file of message sends: `setup(options)` starts a sandbox of the sample store (with
 * the faults asked for), a client of it and a scratch directory; after each test the sandbox is
 * closed and the directory removed. Call at the top level of the file: it registers the hook.
 */
export function messageSandboxes(): (options?: SandboxOptions) => Promise<MessageSandbox> {
  const open: { sandbox: RunningSandbox; client: MerchantClient; dir: string }[] = [];
  afterEach(async () => {
    for (const { sandbox, client, dir } of open.splice(0)) {
      await client.close();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return async (options = {}) => {
    const sandbox = await startSandbox({ seed: SAMPLE_STORE, ...options });
    const client = new MerchantClient({
      baseUrl: sandbox.url,
      token: sandbox.token,
      retryDelay: { initialDelayMs: 5, maxDelayMs: 50 },
    });
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-messages-'));
    open.push({ sandbox, client, dir });
    return { s: sandbox, client, dir, runsRoot: join(dir, '.mbulk', 'runs') };
  };
}

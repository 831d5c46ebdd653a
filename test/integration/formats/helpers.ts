import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { Product } from '../../../src/schema/index.js';
import { runCli, type CliRun } from '../../helpers/run-cli.js';

export const FIXTURES = resolve('test/fixtures/formats');

export interface Harness {
  sandbox: RunningSandbox;
  dir: string;
  env: NodeJS.ProcessEnv;
  cli: (...argv: string[]) => Promise<CliRun>;
  /** Requests that write (anything but GET). */
  writes: () => { method: string; path: string }[];
  /** Live products by reference_id. */
  byRef: () => Map<string, Product>;
}

export async function harness(): Promise<Harness> {
  const sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-formats-'));
  const env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
  return {
    sandbox,
    dir,
    env,
    cli: (...argv) => runCli(argv, env, dir),
    writes: () => sandbox.requestLog().filter((e) => e.method !== 'GET'),
    byRef: () => {
      const map = new Map<string, Product>();
      for (const p of sandbox.store.toSnapshot().products) if (p.reference_id) map.set(p.reference_id, p);
      return map;
    },
  };
}

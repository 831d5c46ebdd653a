import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import type { StoreSnapshot } from '../../src/schema/index.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The sample store (samples/store.json), as tests seed it. */
export const SAMPLE_STORE = JSON.parse(
  readFileSync(join(ROOT, 'samples', 'store.json'), 'utf8'),
) as StoreSnapshot;

export interface SampleSandbox {
  s: RunningSandbox;
  /** The environment that points the CLI at this sandbox. */
  env: { MERCHANT_API_URL: string; MERCHANT_API_TOKEN: string };
  /** Requests of the request log that write (anything but GET) to the API. */
  writes: () => ReturnType<RunningSandbox['requestLog']>;
}

/**
 * For one test file: a scratch directory (removed after the file) and sandboxes seeded with the
 * sample store (each closed after its test). Call at the top level of the file: it registers hooks.
 */
export function sampleSandboxes(prefix: string): { dir: string; sandbox: () => Promise<SampleSandbox> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const open: RunningSandbox[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const sandbox = async (): Promise<SampleSandbox> => {
    const s = await startSandbox({ seed: structuredClone(SAMPLE_STORE) });
    open.push(s);
    return {
      s,
      env: { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token },
      writes: () => s.requestLog().filter((e) => e.method !== 'GET' && e.path.startsWith('/api/')),
    };
  };
  return { dir, sandbox };
}

/**
 * The sample store with no products and no orders, and two customers (cus_1 Aida 60121111111,
 * cus_2 Badrul 60122222222, both last updated 2026-01-01): a seed for customer imports.
 */
export function twoCustomersStore(): StoreSnapshot {
  const t = '2026-01-01T00:00:00.000Z';
  const customer = (id: string, name: string, phone: string) => ({
    id,
    object: 'customer' as const,
    name,
    phone,
    email: null,
    address: null,
    created_at: t,
    updated_at: t,
  });
  return {
    ...structuredClone(SAMPLE_STORE),
    products: [],
    orders: [],
    customers: [customer('cus_1', 'Aida', '60121111111'), customer('cus_2', 'Badrul', '60122222222')],
  };
}

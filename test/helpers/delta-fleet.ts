import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FleetSummary } from '../../src/fleet/fleet-summary.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { SAMPLE_STORE } from './sample-sandboxes.js';

const BIN = resolve('bin/mbulk.js');

/** The items every store's feed moves, each by a delta of its own (1 to 6): a double shows. */
export const DELTA_SKUS = [
  'TEE-LIN-SND-S',
  'TEE-LIN-SND-M',
  'TEE-LIN-SND-L',
  'NLB-SGL-STD',
  'KBT',
  'PIN-WHT',
];

export interface DeltaFleet {
  dir: string;
  sandboxes: RunningSandbox[];
  env: NodeJS.ProcessEnv;
  /** The quantity of each of DELTA_SKUS in store i before any run. */
  before: Map<string, number>[];
  close(): Promise<void>;
}

/** Quantities by SKU in a sandbox's store. */
export function quantities(s: RunningSandbox): Map<string, number> {
  const items = new Map<string, number>();
  for (const p of s.store.toSnapshot().products) {
    if (p.sku && p.inventory) items.set(p.sku, p.inventory.quantity);
    for (const v of p.variants ?? []) if (v.sku && v.inventory) items.set(v.sku, v.inventory.quantity);
  }
  return items;
}

/** The delta store i's feed gives item k (0-based): k + 1. */
export const deltaOf = (k: number): number => k + 1;

/**
 * A fleet of `stores` sandboxes (`latencyMs` a request), each fed `sku,delta_quantity` over HTTP from
 * a feed server on 127.0.0.1, applied one item per write request (batch-size 1, concurrency 1), so a
 * store's run is a few seconds of writes a test can interrupt anywhere. `stores.yaml` in `dir`.
 */
export async function deltaFleet(
  prefix: string,
  stores = 3,
  latencyMs = 150,
  /** Each store's feed a file (`feed-i.csv` in `dir`) instead of a URL. */
  localFeeds = false,
): Promise<DeltaFleet> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const sandboxes: RunningSandbox[] = [];
  for (let i = 0; i < stores; i++)
    sandboxes.push(await startSandbox({ seed: structuredClone(SAMPLE_STORE), latencyMs }));
  const feed = `sku,delta_quantity\n${DELTA_SKUS.map((sku, k) => `${sku},${deltaOf(k)}`).join('\n')}\n`;
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv' }).end(feed);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const feeds = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (localFeeds) sandboxes.forEach((_, i) => writeFileSync(join(dir, `feed-${i}.csv`), feed));
  const feedOf = (i: number): string => (localFeeds ? `feed-${i}.csv` : `${feeds}/feeds/shop-${i}.csv`);
  const lines = sandboxes.map(
    (s, i) => `  - { name: shop-${i}, base_url: "${s.url}", token_env: SHOP_TOKEN, feed: "${feedOf(i)}" }`,
  );
  writeFileSync(
    join(dir, 'stores.yaml'),
    `job: import stock\napply: true\noptions: { batch-size: 1, concurrency: 1 }\nstores:\n${lines.join('\n')}\n`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    MBULK_LOCK_DIR: join(dir, 'locks'),
    SHOP_TOKEN: (sandboxes[0] as RunningSandbox).token,
  };
  return {
    dir,
    sandboxes,
    env,
    before: sandboxes.map(quantities),
    close: async () => {
      await Promise.all(sandboxes.map((s) => s.close()));
      await new Promise((done) => server.close(done));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Write requests the sandbox acted on (a replay of a key it already answered is not one). */
export function appliedWrites(s: RunningSandbox): number {
  return s.requestLog().filter((e) => e.method === 'POST' && e.outcome === 'applied').length;
}

/** Each delta the store received, beyond the quantity it had: item k's, 1 × its delta when once. */
export function deltasReceived(fleet: DeltaFleet, i: number): number[] {
  const now = quantities(fleet.sandboxes[i] as RunningSandbox);
  const before = fleet.before[i] as Map<string, number>;
  return DELTA_SKUS.map((sku) => (now.get(sku) ?? NaN) - (before.get(sku) ?? NaN));
}

export interface FleetProcess {
  child: ChildProcess;
  /** Resolves with the exit code (or -1 when killed) and everything it printed. */
  done: Promise<{ code: number; signal: NodeJS.Signals | null; out: string }>;
}

/** `mbulk fleet run stores.yaml --apply --yes` in the fleet's directory, as its own process. */
export function runFleetProcess(fleet: DeltaFleet, extra: string[] = []): FleetProcess {
  const child = spawn(process.execPath, [BIN, 'fleet', 'run', 'stores.yaml', '--apply', '--yes', ...extra], {
    cwd: fleet.dir,
    env: fleet.env,
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number; signal: NodeJS.Signals | null; out: string }>((resolveDone) =>
    child.on('close', (code, signal) => resolveDone({ code: code ?? -1, signal, out })),
  );
  return { child, done };
}

/**
 * The processes of this machine running a store of the fleet: `mbulk import …` whose command line
 * names the fleet's directory (each store's `--runs-dir` is under it).
 */
export function storeProcesses(fleet: DeltaFleet): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const args = cmdline.split('\0');
    if (args.includes('import') && cmdline.includes(fleet.dir)) pids.push(Number(entry));
  }
  return pids;
}

/** Polls `condition` every few milliseconds until it holds or `ms` have passed; says whether it held. */
export async function waitFor(condition: () => boolean, ms: number, everyMs = 10): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (condition()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The summary.json of the fleet's latest run. */
export function latestSummary(fleet: DeltaFleet): FleetSummary {
  const runs = join(fleet.dir, '.mbulk', 'fleet', 'runs');
  // The newest by when its summary was written: two fleet runs started in the same second have ids
  // that sort by their random suffix, not by time.
  const latest = readdirSync(runs)
    .filter((name) => existsSync(join(runs, name, 'summary.json')))
    .map((name) => ({ name, at: statSync(join(runs, name, 'summary.json')).mtimeMs }))
    .sort((a, b) => a.at - b.at)
    .at(-1)?.name as string;
  return JSON.parse(readFileSync(join(runs, latest, 'summary.json'), 'utf8')) as FleetSummary;
}

/** Write requests all the fleet's sandboxes acted on. */
export function totalWrites(f: DeltaFleet): number {
  return f.sandboxes.reduce((n, s) => n + appliedWrites(s), 0);
}

/** A write count at which to stop the fleet: somewhere in the first `part` of all its writes. */
export function randomWrite(f: DeltaFleet, part = 2 / 3): number {
  const all = f.sandboxes.length * DELTA_SKUS.length;
  return 1 + Math.floor(Math.random() * Math.floor(all * part));
}

/** The runs (run.json) of store i, as its runs directory holds them. */
export function storeRuns(f: DeltaFleet, i: number): { id: string; status: string }[] {
  const root = join(f.dir, '.mbulk', 'fleet', 'stores', `shop-${i}`, 'runs');
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map(
      (e) =>
        JSON.parse(readFileSync(join(root, e.name, 'run.json'), 'utf8')) as { id: string; status: string },
    );
}

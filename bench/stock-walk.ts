/**
 * The walk of a stock apply through src/'s folders (issue 42: "the walk of a stock apply should
 * not return to results/ more than once per batch"). Plans a stock sheet against an in-process
 * sandbox, then applies it as `mbulk import stock --apply` does (applySavedRun: the lock, the drift
 * check, the runner) under the V8 sampling profiler. Each sample is put in the folder of src/ of
 * its innermost frame of ours (src/sandbox's frames, the server's, are left out: a sample in them
 * is no step of the walk); consecutive samples in one folder are one visit. Prints the visits of
 * each folder, how many times the walk came back to a folder it had left, and the same for
 * results/ against the batches. Also the exact call counts of results/'s functions (precise
 * coverage), which sampling may miss.
 *
 *   npx tsx bench/stock-walk.ts [--items 1000] [--changed 1000] [--batch 100] [--interval 25]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MerchantClient } from '../src/api/merchant-client.js';
import { applySavedRun } from '../src/jobs/apply-saved-run.js';
import { planStockImport } from '../src/jobs/stock/stock-import.js';
import { generateStore } from '../src/sandbox/generator.js';
import { startSandbox } from '../src/sandbox/server.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const changedWanted = arg('changed', 1000);
const batch = arg('batch', 100);
const interval = arg('interval', 25);
const src = fileURLToPath(new URL('../src/', import.meta.url));

/** The functions of results/ that other folders call (the runner, the kinds, the CLI). */
const ENTRIES = new Set([
  'SheetResultsAhead',
  'discard',
  'writeSheetResults',
  'writeEntityResults',
  'countChanges',
  'failureOf',
  'changeOf',
  'notWrittenByKey',
  'invalidRowResult',
]);

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}

/** The folder of src/ a script belongs to (`results`, `apply`…; a file at src/'s top: its name), or undefined. */
function roomOf(url: string): string | undefined {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (!path.startsWith(src)) return undefined;
  return path.slice(src.length).split(sep)[0];
}

const snapshot = generateStore({
  products: Math.ceil(arg('items', changedWanted) / 3),
  customers: 0,
  orders: 0,
  seed: 7,
});
const sandbox = await startSandbox({ seed: snapshot });
const dir = mkdtempSync(join(tmpdir(), 'mbulk-walk-'));
try {
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token });
  const rows: string[] = ['sku,quantity'];
  for (const p of snapshot.products) {
    if (!p.inventory_enabled) continue;
    for (const i of [p.inventory, ...p.variants.map((v) => v.inventory)]) {
      if (!i?.sku) continue;
      rows.push(`${i.sku},${rows.length <= changedWanted ? i.quantity + 1 : i.quantity}`);
    }
  }
  const file = join(dir, 'stock.csv');
  writeFileSync(file, `${rows.join('\n')}\n`);
  const planned = await planStockImport({
    client,
    file,
    runsRoot: join(dir, 'runs'),
    target: sandbox.url,
    batchSize: batch,
  });
  const changed = planned.file.plan.changes.length;
  const batches = Math.ceil(changed / batch);

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval });
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  await session.post('Profiler.start');
  const applied = await applySavedRun(planned.run, { client, target: sandbox.url, lock: false });
  const { profile } = (await session.post('Profiler.stop')) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[] };
  };
  const coverage = (await session.post('Profiler.takePreciseCoverage')) as unknown as {
    result: {
      url: string;
      functions: {
        functionName: string;
        ranges: { startOffset: number; endOffset: number; count: number }[];
      }[];
    }[];
  };
  session.disconnect();
  if (applied.applied !== true) throw new Error(`not applied: ${JSON.stringify(applied)}`);

  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  /** The folder of a sample's innermost frame of ours (undefined: none, or the sandbox's). */
  const roomOfSample = (id: number): string | undefined => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const room = roomOf(byId.get(at)?.callFrame.url ?? '');
      if (room !== undefined) return room === 'sandbox' ? undefined : room;
    }
    return undefined;
  };
  const walk: string[] = [];
  for (const id of profile.samples) {
    const room = roomOfSample(id);
    if (room !== undefined && walk.at(-1) !== room) walk.push(room);
  }
  // Spans of samples whose stack holds a frame of results/ (a call down into sheets/ or files/ and
  // back is one span): how many times the walk entered results/ from outside it.
  const inResults = (id: number): boolean | undefined => {
    let ours = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const room = roomOf(byId.get(at)?.callFrame.url ?? '');
      if (room === 'results') return true;
      if (room !== undefined && room !== 'sandbox') ours = true;
    }
    return ours ? false : undefined;
  };
  let entries = 0;
  let inside = false;
  for (const id of profile.samples) {
    const now = inResults(id);
    if (now === undefined) continue;
    if (now && !inside) entries++;
    inside = now;
  }
  const visits = new Map<string, number>();
  for (const room of walk) visits.set(room, (visits.get(room) ?? 0) + 1);
  const returns = walk.length - visits.size;
  const results = visits.get('results') ?? 0;

  console.log(
    `load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; sampling every ${interval} us`,
  );
  console.log(`changes ${changed}, batches ${batches} of ${batch}, samples ${profile.samples.length}`);
  console.log(
    `walk: ${walk.length} visits of ${visits.size} folders, ${returns} returns to a folder left before`,
  );
  console.log(
    `visits: ${[...visits]
      .sort((a, b) => b[1] - a[1])
      .map(([r, n]) => `${r} ${n}`)
      .join(', ')}`,
  );
  console.log(
    `results/: ${results} visits, ${Math.max(0, results - 1)} returns, ${(Math.max(0, results - 1) / batches).toFixed(2)} a batch`,
  );
  console.log(
    `results/ on the stack: entered ${entries} times from outside it, ${Math.max(0, entries - 1)} returns, ${(Math.max(0, entries - 1) / batches).toFixed(2)} a batch`,
  );
  // Exact: how many times each function of results/ that other folders call was called, and how
  // many turns the read-ahead took (SheetResultsAhead.render resumes from the event loop once a
  // turn): every one an entry into results/ from outside it.
  const calls = new Map<string, number>();
  let render: (typeof coverage.result)[number]['functions'][number] | undefined;
  for (const script of coverage.result) {
    if (roomOf(script.url) !== 'results') continue;
    for (const f of script.functions) {
      const count = f.ranges[0]?.count ?? 0;
      if (count > 0 && ENTRIES.has(f.functionName)) calls.set(f.functionName, count);
      if (f.functionName === 'render' && script.url.endsWith('sheet-results.ts')) render = f;
    }
    // The read-ahead's turns: its `(resolve) => setImmediate(resolve)`, the one closure of render
    // run more than once.
    for (const f of script.functions) {
      const [own] = f.ranges;
      const [outer] = render?.ranges ?? [];
      if (f.functionName !== '' || !own || !outer || own.count < 2) continue;
      if (own.startOffset > outer.startOffset && own.endOffset < outer.endOffset) {
        calls.set('read-ahead turns', own.count);
      }
    }
    render = undefined;
  }
  const total = [...calls.values()].reduce((a, b) => a + b, 0);
  console.log(
    `entries into results/ (exact): ${total}, ${(total / batches).toFixed(2)} a batch: ${[...calls].map(([f, n]) => `${f} ${n}`).join(', ')}`,
  );
  if (process.argv.includes('--walk')) console.log(walk.join(' > '));
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}

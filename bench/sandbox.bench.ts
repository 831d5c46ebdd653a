/**
 * Sandbox benchmark: how long and how much memory it takes to generate and load a big synthetic
 * store, and how many list pages of 100 products the sandbox serves per second on loopback.
 *
 *   npx tsx bench/sandbox.bench.ts [--products 100000] [--customers 20000] [--orders 100000]
 *                                  [--readers 4] [--passes 1] [--seed 1] [--skip-generate-only] [--persist]
 *
 * At a million SKUs (issue 26):
 *   npx tsx bench/sandbox.bench.ts --products 330000 --customers 0 --orders 0 --persist --skip-generate-only
 *
 * Targets (issue 2): generate + load 100k products (avg 3 variants) + 100k orders in < 60 s and
 * < 2 GiB; >= 300 pages of 100 products per second. Issue 41, at 330k products: generate, save
 * and load each < 60 s and < 1.5 GB; no stall over 200 ms while serving a read. A stall is the
 * serving process's event-loop delay (perf_hooks monitorEventLoopDelay, 10 ms resolution: the
 * longest time a ready callback waited), taken from when it listens, and reset before each phase
 * of reading; the bench prints the longest of each phase and the load average of the machine.
 *
 * Each measured part runs in its own child process so peak RSS figures are not mixed up:
 * - `generate-only`: generateStore() alone (time, CPU, peak RSS, JSON size of the snapshot parts);
 * - `serve`: startSandbox({ generate }) (time to listening, peak RSS), then it serves while this
 *   process reads. Readers live in the parent so they don't share the server's event loop.
 * - `persist` (with --persist): generates the store as the sandbox does (createSandboxStore: each
 *   product into its compact form as it is made), writes its state file as the sandbox saves it
 *   (time, CPU, size, peak RSS); `serve` then starts from that file (the streaming reader).
 * Reading: one sequential reader walks every page with the cursor and checks that every product
 * comes exactly once; then R concurrent readers each walk their own full pass (fast path: no JSON
 * parse, the cursor is cut out of the body text).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

interface Args {
  products: number;
  customers: number;
  orders: number;
  readers: number;
  passes: number;
  seed: number;
  generateOnly: boolean;
  /** Also persist the generated store to a state file and serve it from that file (issue 26). */
  persist: boolean;
}

function parseArgs(argv: string[]): Args & { child: string | null } {
  const get = (name: string, fallback: number): number => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return fallback;
    const v = Number((argv[i + 1] ?? '').replace(/_/g, ''));
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`--${name} needs a non-negative integer`);
    return v;
  };
  const childIndex = argv.indexOf('--child');
  return {
    products: get('products', 100_000),
    customers: get('customers', 20_000),
    orders: get('orders', 100_000),
    readers: Math.max(1, get('readers', 4)),
    passes: Math.max(1, get('passes', 1)),
    seed: get('seed', 1),
    generateOnly: !argv.includes('--skip-generate-only'),
    persist: argv.includes('--persist'),
    child: childIndex >= 0 ? (argv[childIndex + 1] ?? null) : null,
  };
}

const MiB = 1024 * 1024;
/** Peak resident set size of this process so far, in MiB (ru_maxrss is in KiB on Linux). */
const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// ------------------------------------------------------------------------------------------------
// Children: print one JSON line per report on stdout.

async function childGenerateOnly(a: Args): Promise<void> {
  const { generateStore } = await import('../src/sandbox/generator.js');
  const t0 = performance.now();
  const c0 = cpuMs();
  const s = generateStore({ products: a.products, customers: a.customers, orders: a.orders, seed: a.seed });
  const ms = performance.now() - t0;
  const cpu = cpuMs() - c0;
  const rssAfter = peakRssMiB();
  const variants = s.products.reduce((n, p) => n + p.variants.length, 0);
  // Size of the snapshot as JSON, part by part (one string for everything may pass V8's limit).
  let jsonBytes = 0;
  for (const part of [s.products, s.customers, s.orders]) {
    for (let i = 0; i < part.length; i += 10_000)
      jsonBytes += JSON.stringify(part.slice(i, i + 10_000)).length;
  }
  console.log(
    JSON.stringify({
      ms,
      cpu,
      peakRssMiB: rssAfter,
      variants,
      jsonMiB: jsonBytes / MiB,
      orders: s.orders.length,
    }),
  );
}

/** Where the persisting child writes the state file and the serving child loads it from. */
const stateFile = join(tmpdir(), 'mbulk-bench-sandbox', 'state.json');

/** Generates the store, loads it, then writes its state file the way the sandbox saves it. */
async function childPersist(a: Args): Promise<void> {
  const { createSandboxStore } = await import('../src/sandbox/server.js');
  const { StateSaver } = await import('../src/sandbox/persistence.js');
  rmSync(stateFile, { force: true });
  const t0 = performance.now();
  const c0 = cpuMs();
  // As the sandbox generates its store (startSandbox({ generate })).
  const store = await createSandboxStore({
    generate: { products: a.products, customers: a.customers, orders: a.orders, seed: a.seed },
  });
  const t1 = performance.now();
  const c1 = cpuMs();
  const rssLoaded = peakRssMiB();
  const saver = new StateSaver(store, stateFile, 0);
  saver.schedule();
  await saver.flush();
  const t2 = performance.now();
  console.log(
    JSON.stringify({
      generateMs: t1 - t0,
      generateCpuMs: c1 - c0,
      saveMs: t2 - t1,
      saveCpuMs: cpuMs() - c1,
      peakRssLoadedMiB: rssLoaded,
      peakRssMiB: peakRssMiB(),
      fileMiB: statSync(stateFile).size / MiB,
      items: store.counts().variants,
    }),
  );
}

async function childServe(a: Args): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/server.js');
  const t0 = performance.now();
  const c0 = cpuMs();
  const sandbox = await startSandbox({
    port: 0,
    ...(a.persist
      ? { dataFile: stateFile }
      : { generate: { products: a.products, customers: a.customers, orders: a.orders, seed: a.seed } }),
  });
  const ms = performance.now() - t0;
  console.log(
    JSON.stringify({
      url: sandbox.url,
      token: sandbox.token,
      ms,
      cpu: cpuMs() - c0,
      peakRssMiB: peakRssMiB(),
    }),
  );
  // Event-loop delay while serving: the longest wait of a ready callback since the last `stats`.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line === 'stats') {
      console.log(
        JSON.stringify({
          cpu: cpuMs(),
          peakRssMiB: peakRssMiB(),
          maxStallMs: delay.max / 1e6,
          p99StallMs: delay.percentile(99) / 1e6,
        }),
      );
      delay.reset();
    }
    if (line === 'quit') break;
  }
  delay.disable();
  await sandbox.close();
  process.exit(0);
}

// ------------------------------------------------------------------------------------------------
// Parent.

function spawnChild(kind: string, argv: string[]) {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [...process.execArgv, self, ...argv, '--child', kind], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const iterator = lines[Symbol.asyncIterator]();
  return {
    child,
    async next<T>(): Promise<T> {
      const r = await iterator.next();
      if (r.done === true) throw new Error(`${kind} child ended without a report`);
      return JSON.parse(r.value as string) as T;
    },
  };
}

/** Runs a child that prints one report and exits; returns the report. */
async function reportOnce<T>(kind: string, argv: string[]): Promise<T> {
  const c = spawnChild(kind, argv);
  const report = await c.next<T>();
  await new Promise((resolve) => c.child.once('exit', resolve));
  return report;
}

const NEXT_CURSOR = '"next_cursor":';

/** Walks every product page; returns pages read and products seen. `check` parses and verifies ids. */
async function readPass(
  agent: Agent,
  url: string,
  token: string,
  check: boolean,
): Promise<{ pages: number; products: number; bytes: number; ids?: Set<string> }> {
  let cursor: string | null = null;
  let pages = 0;
  let bytes = 0;
  let products = 0;
  const ids = check ? new Set<string>() : undefined;
  do {
    const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await request(`${url}/api/v2/products?limit=100${q}`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    pages++;
    bytes += text.length;
    if (check) {
      const page = JSON.parse(text) as {
        data: { id: string }[];
        next_cursor: string | null;
        has_more: boolean;
      };
      for (const p of page.data) {
        if (ids?.has(p.id)) throw new Error(`product ${p.id} served twice`);
        ids?.add(p.id);
      }
      products += page.data.length;
      cursor = page.has_more ? page.next_cursor : null;
    } else {
      const at = text.lastIndexOf(NEXT_CURSOR);
      const rest = text.slice(at + NEXT_CURSOR.length).trimStart();
      cursor = rest.startsWith('null')
        ? null
        : (JSON.parse(rest.slice(0, rest.indexOf('"', 1) + 1)) as string);
    }
  } while (cursor !== null);
  return ids ? { pages, products, bytes, ids } : { pages, products, bytes };
}

function row(cells: (string | number)[], widths: number[]): string {
  return cells.map((c, i) => String(c).padEnd(widths[i] ?? 10)).join('  ');
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  if (a.child === 'generate-only') return childGenerateOnly(a);
  if (a.child === 'serve') return childServe(a);
  if (a.child === 'persist') return childPersist(a);

  const sizeArgs = [
    '--products',
    String(a.products),
    '--customers',
    String(a.customers),
    '--orders',
    String(a.orders),
    '--seed',
    String(a.seed),
  ];
  console.log(
    `sandbox bench: ${a.products} products, ${a.customers} customers, ${a.orders} orders, seed ${a.seed}, ` +
      `${a.readers} concurrent readers (node ${process.version}); load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  const figures: [string, string, string][] = [];

  if (a.generateOnly) {
    const r = await reportOnce<{
      ms: number;
      cpu: number;
      peakRssMiB: number;
      variants: number;
      jsonMiB: number;
    }>('generate-only', sizeArgs);
    figures.push(['generateStore() alone: wall', `${(r.ms / 1000).toFixed(1)} s`, '< 30 s']);
    figures.push(['generateStore() alone: CPU', `${(r.cpu / 1000).toFixed(1)} s`, '']);
    figures.push([
      'generateStore() alone: peak RSS',
      `${r.peakRssMiB.toFixed(0)} MiB`,
      '< 1431 MiB (1.5 GB)',
    ]);
    figures.push(['variants per product', (r.variants / Math.max(1, a.products)).toFixed(2), '~3']);
    figures.push(['snapshot JSON size', `${r.jsonMiB.toFixed(0)} MiB`, '']);
  }

  if (a.persist) {
    mkdirSync(dirname(stateFile), { recursive: true });
    const r = await reportOnce<{
      generateMs: number;
      generateCpuMs: number;
      saveMs: number;
      saveCpuMs: number;
      peakRssLoadedMiB: number;
      peakRssMiB: number;
      fileMiB: number;
    }>('persist', sizeArgs);
    figures.push(['generate + load into a store: wall', `${(r.generateMs / 1000).toFixed(1)} s`, '< 60 s']);
    figures.push(['  CPU', `${(r.generateCpuMs / 1000).toFixed(1)} s`, '']);
    figures.push(['  peak RSS', `${r.peakRssLoadedMiB.toFixed(0)} MiB`, '< 1431 MiB (1.5 GB)']);
    figures.push(['save the state file (streamed): wall', `${(r.saveMs / 1000).toFixed(1)} s`, '< 60 s']);
    figures.push(['  CPU', `${(r.saveCpuMs / 1000).toFixed(1)} s`, '']);
    figures.push(['  state file size', `${r.fileMiB.toFixed(0)} MiB`, '']);
    figures.push(['  peak RSS after saving', `${r.peakRssMiB.toFixed(0)} MiB`, '< 1431 MiB (1.5 GB)']);
  }

  const s = spawnChild('serve', [...sizeArgs, ...(a.persist ? ['--persist'] : [])]);
  const ready = await s.next<{ url: string; token: string; ms: number; cpu: number; peakRssMiB: number }>();
  const how = a.persist ? 'startSandbox(state file)' : 'startSandbox(generate)';
  figures.push([`${how}: to listening`, `${(ready.ms / 1000).toFixed(1)} s`, '< 60 s']);
  figures.push([`${how}: CPU`, `${(ready.cpu / 1000).toFixed(1)} s`, '']);
  figures.push([`${how}: peak RSS`, `${ready.peakRssMiB.toFixed(0)} MiB`, '< 1431 MiB (1.5 GB)']);
  const stall = async (label: string): Promise<void> => {
    s.child.stdin.write('stats\n');
    const r = await s.next<{ maxStallMs: number; p99StallMs: number }>();
    figures.push([
      `longest stall, ${label}`,
      `${r.maxStallMs.toFixed(0)} ms`,
      `<= 200 ms (÷ ${(r.maxStallMs / 200).toFixed(2)}); p99 ${r.p99StallMs.toFixed(0)} ms`,
    ]);
  };
  // From listening to here: nothing read yet (the reset point of the first phase).
  s.child.stdin.write('stats\n');
  await s.next();

  const agent = new Agent({ connections: a.readers + 1, pipelining: 1, keepAliveTimeout: 10_000 });
  try {
    // Warm-up + correctness: one full sequential pass, parsed.
    let t = performance.now();
    const first = await readPass(agent, ready.url, ready.token, true);
    let secs = (performance.now() - t) / 1000;
    if (first.products !== a.products)
      throw new Error(`saw ${first.products} products, expected ${a.products}`);
    figures.push(['page of 100 products: size', `${(first.bytes / first.pages / 1024).toFixed(0)} KiB`, '']);
    figures.push(['1 reader, full parse: pages of 100/s', (first.pages / secs).toFixed(0), '>= 300']);
    await stall('first read');

    // Sequential, fast client.
    t = performance.now();
    let pages = 0;
    for (let p = 0; p < a.passes; p++) pages += (await readPass(agent, ready.url, ready.token, false)).pages;
    secs = (performance.now() - t) / 1000;
    figures.push(['1 reader: pages of 100/s', (pages / secs).toFixed(0), '>= 300']);
    await stall('1 reader');

    // Concurrent readers, each its own full pass.
    s.child.stdin.write('stats\n');
    const before = await s.next<{ cpu: number }>();
    t = performance.now();
    const results = await Promise.all(
      Array.from({ length: a.readers * a.passes }, () => readPass(agent, ready.url, ready.token, false)),
    );
    secs = (performance.now() - t) / 1000;
    pages = results.reduce((n, r) => n + r.pages, 0);
    s.child.stdin.write('stats\n');
    const after = await s.next<{ cpu: number; peakRssMiB: number; maxStallMs: number; p99StallMs: number }>();
    figures.push([`${a.readers} readers: pages of 100/s`, (pages / secs).toFixed(0), '>= 300']);
    figures.push([
      `${a.readers} readers: server CPU per page`,
      `${((after.cpu - before.cpu) / pages).toFixed(2)} ms`,
      '',
    ]);
    figures.push([
      `longest stall, ${a.readers} readers`,
      `${after.maxStallMs.toFixed(0)} ms`,
      `<= 200 ms (÷ ${(after.maxStallMs / 200).toFixed(2)}); p99 ${after.p99StallMs.toFixed(0)} ms`,
    ]);
    figures.push(['sandbox peak RSS after serving', `${after.peakRssMiB.toFixed(0)} MiB`, '< 2048 MiB']);
  } finally {
    await agent.close();
    s.child.stdin.write('quit\n');
    await new Promise((resolve) => s.child.once('exit', resolve));
  }

  const widths = [44, 12, 12];
  console.log('');
  console.log(row(['figure', 'value', 'target'], widths));
  console.log(row(['-'.repeat(44), '-'.repeat(12), '-'.repeat(12)], widths));
  for (const f of figures) console.log(row(f, widths));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

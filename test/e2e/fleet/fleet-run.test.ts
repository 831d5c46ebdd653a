import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FleetSummary } from '../../../src/fleet/fleet-summary.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { attr, parseHtml, select } from '../../helpers/review-dom.js';
import { runCli } from '../../helpers/run-cli.js';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';

// The acceptance test of `mbulk fleet run`: twelve small sandboxes on loopback, the built binary
// as a user runs it, each store's job a child process of it. Store 9's API does not answer,
// store 10 refuses on --max-changes, store 11's token is wrong; the other nine apply.
const BIN = resolve('bin/mbulk.js');
const STORES = 12;
const UNREACHABLE = 9;
const REFUSING = 10;
const BAD_TOKEN = 11;
const FEED_SECRET = 'feed-secret-4b1d';

const dir = mkdtempSync(join(tmpdir(), 'mbulk-fleet-'));
const sandboxes: RunningSandbox[] = [];
const servers: Server[] = [];
let env: NodeJS.ProcessEnv;
const hooked: string[] = [];
let hook: string;
let closedPort: number;

function listen(server: Server): Promise<string> {
  servers.push(server);
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

const name = (i: number): string => `store-${String(i).padStart(2, '0')}`;
const token = (i: number): string => `token-${i}-9f8e7d`;

/** The feed of store i: two SKUs to new quantities (store 10's options allow one change). */
const feed = (i: number): string => `sku,quantity\nTEE-LIN-SND-S,${100 + i}\nKBT,${200 + i}\n`;

beforeAll(async () => {
  for (let i = 0; i < STORES; i++) {
    sandboxes.push(await startSandbox({ seed: structuredClone(SAMPLE_STORE), token: token(i) }));
  }
  const closed = createServer();
  closedPort = Number(new URL(await listen(closed)).port);
  await new Promise((done) => closed.close(done));
  servers.splice(servers.indexOf(closed), 1);
  // Store 0's feed is a URL that wants a header, given through header_env.
  const feedUrl = await listen(
    createServer((req, res) => {
      if (req.headers['authorization'] !== `Bearer ${FEED_SECRET}`) return void res.writeHead(401).end();
      res.writeHead(200, { 'content-type': 'text/csv' }).end(feed(0));
    }),
  );
  hook = await listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        hooked.push(body);
        res.writeHead(200).end('ok');
      });
    }),
  );
  const lines = ['job: import stock', 'options: { max-changes: 50% }', 'stores:'];
  for (let i = 0; i < STORES; i++) {
    const url = i === UNREACHABLE ? `http://127.0.0.1:${closedPort}` : (sandboxes[i] as RunningSandbox).url;
    lines.push(`  - name: ${name(i)}`, `    base_url: ${url}`, `    token_env: TOKEN_${i}`);
    if (i === 0) lines.push(`    feed: ${feedUrl}/feeds/store-00.csv`, '    header_env: FEED_AUTH');
    else {
      writeFileSync(join(dir, `feed-${i}.csv`), feed(i));
      lines.push(`    feed: feed-${i}.csv`);
    }
    if (i === REFUSING) lines.push('    options: { max-changes: 1 }');
  }
  writeFileSync(join(dir, 'stores.yaml'), `${lines.join('\n')}\n`);
  // The same fleet with `apply: true`: --no-apply on the command line plans only.
  writeFileSync(join(dir, 'stores-apply.yaml'), `apply: true\n${lines.join('\n')}\n`);
  env = {
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    MBULK_LOCK_DIR: join(dir, 'locks'),
    FEED_AUTH: `Authorization: Bearer ${FEED_SECRET}`,
  };
  for (let i = 0; i < STORES; i++) env[`TOKEN_${i}`] = i === BAD_TOKEN ? 'not-the-token' : token(i);
});

afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  rmSync(dir, { recursive: true, force: true });
});

/** The built binary, asynchronously (the sandboxes answer from this process). */
function mbulk(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code: code ?? -1, stdout, stderr })));
}

/** Quantities of the two SKUs every feed names, in store i. */
function quantities(i: number): [number | undefined, number | undefined] {
  const items = new Map<string, number | undefined>();
  for (const p of (sandboxes[i] as RunningSandbox).store.toSnapshot().products) {
    if (p.sku) items.set(p.sku, p.inventory?.quantity);
    for (const v of p.variants ?? []) if (v.sku) items.set(v.sku, v.inventory?.quantity);
  }
  return [items.get('TEE-LIN-SND-S'), items.get('KBT')];
}

function writes(i: number): number {
  return (sandboxes[i] as RunningSandbox)
    .requestLog()
    .filter((e) => e.method !== 'GET' && e.path.startsWith('/api/')).length;
}

/** Every file under `root`, recursively. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(root, e.name)) : [join(root, e.name)],
  );
}

it('twelve stores: nine apply, the unreachable one, the refusing one and the bad token do not; one summary, exit 4 (the worst)', async () => {
  const before = quantities(1);
  const r = await mbulk([
    'fleet',
    'run',
    'stores.yaml',
    '--apply',
    '--yes',
    '--json',
    '--parallel',
    '6',
    '--notify-url',
    hook,
  ]);
  expect(r.code, r.stderr).toBe(4);
  const summary = JSON.parse(r.stdout) as FleetSummary;
  const expected = Array.from({ length: STORES }, (_, i) =>
    i === UNREACHABLE || i === BAD_TOKEN
      ? ['unreachable', 4]
      : i === REFUSING
        ? ['refused', 3]
        : ['applied', 0],
  );
  expect(summary.stores.map((s) => [s.outcome, s.exitCode])).toEqual(expected);
  expect(summary.stores.map((s) => s.name)).toEqual(Array.from({ length: STORES }, (_, i) => name(i)));
  expect(summary).toMatchObject({ ok: false, exitCode: 4, mode: 'apply', job: 'import stock', parallel: 6 });
  expect(summary.totals).toEqual({
    stores: 12,
    outcomes: { applied: 9, unreachable: 2, refused: 1 },
    exitCodes: { '0': 9, '3': 1, '4': 2 },
    applied: { updated: 18, failed: 0, notRun: 0, writeRequests: 9 },
  });

  // Each applied store got its own feed's quantities and has its own run directory.
  const fleetDir = join(dir, '.mbulk', 'fleet');
  for (let i = 0; i < STORES; i++) {
    const store = summary.stores[i]!;
    if (store.exitCode !== 0) continue;
    expect(quantities(i), name(i)).toEqual([100 + i, 200 + i]);
    expect(dirname(store.runDir!)).toBe(join(fleetDir, 'stores', name(i), 'runs'));
    const meta = JSON.parse(readFileSync(join(store.runDir!, 'run.json'), 'utf8')) as Record<string, unknown>;
    expect(meta).toMatchObject({
      id: store.runId,
      kind: 'stock',
      status: 'applied',
      target: sandboxes[i]!.url,
    });
    const results = readFileSync(join(store.runDir!, 'results.csv'), 'utf8').trim().split('\n');
    expect(results).toHaveLength(3);
    expect(existsSync(store.reportHtml!)).toBe(true);
  }
  // Store 0's feed (a URL) is remembered beside its runs: the next night skips it if unchanged.
  expect(existsSync(join(fleetDir, 'stores', name(0), 'sources.json'))).toBe(true);
  // The refusing store planned (its run directory says why) and wrote nothing; the others never got that far.
  const refused = summary.stores[REFUSING]!;
  expect(refused.message).toMatch(/^refused: .*max-changes/);
  expect(JSON.parse(readFileSync(join(refused.runDir!, 'run.json'), 'utf8'))).toMatchObject({
    status: 'planned',
  });
  expect(quantities(REFUSING)).toEqual(before);
  expect(writes(REFUSING)).toBe(0);
  expect(summary.stores[UNREACHABLE]!.message).toBe(
    `nothing answers at http://127.0.0.1:${closedPort} (from base_url): connection refused; check the URL's port and that the service is running`,
  );
  expect(summary.stores[BAD_TOKEN]!.message).toMatch(
    /^the API token from token_env TOKEN_11 was rejected by http:\/\/127\.0\.0\.1:\d+ \(401[^)]*\)/,
  );
  expect(writes(BAD_TOKEN)).toBe(0);
  for (const i of [UNREACHABLE, BAD_TOKEN]) expect(summary.stores[i]!.runId).toBeUndefined();

  // The same summary is kept beside the review page, which links each store's own page.
  expect(JSON.parse(readFileSync(join(summary.fleetRunDir, 'summary.json'), 'utf8'))).toEqual(summary);
  const page = parseHtml(readFileSync(summary.reportHtml, 'utf8'));
  const runLinks = select(page, 'a')
    .map((a) => attr(a, 'href') ?? '')
    .filter((href) => href.endsWith('report.html'))
    .map((href) => resolve(summary.fleetRunDir, decodeURIComponent(href)));
  expect(runLinks).toEqual(summary.stores.filter((s) => s.reportHtml !== undefined).map((s) => s.reportHtml));
  expect(runLinks).toHaveLength(10);
  // The people's view: a table on stderr (stdout holds the JSON document only).
  expect(r.stderr).toMatch(/^#\s+store\s+outcome\s+exit\s+plan\s+run$/m);
  expect(r.stderr).toMatch(/^10\s+store-10\s+refused\s+3\s+rows 2 · change 2\s/m);

  // One notification, one line per store.
  expect(hooked).toHaveLength(1);
  const posted = JSON.parse(hooked[0]!) as { text: string; exitCode: number; command: string };
  expect(posted).toMatchObject({ command: 'mbulk fleet run', exitCode: 4 });
  const lines = posted.text.split('\n');
  expect(lines).toHaveLength(1 + STORES);
  expect(lines[0]).toMatch(
    /^mbulk fleet run: failed \(exit 4\) · import stock \(apply\) on 12 stores: 9 applied · 2 unreachable · 1 refused/,
  );
  expect(lines[1 + REFUSING]).toMatch(/^• store-10: refused \(exit 3\)/);

  // No token and no feed header anywhere: output, notification, any file of the fleet or its stores.
  const secrets = [...Array.from({ length: STORES }, (_, i) => token(i)), 'not-the-token', FEED_SECRET];
  const texts = [
    r.stdout,
    r.stderr,
    ...hooked,
    ...filesUnder(join(dir, '.mbulk')).map((f) => readFileSync(f, 'utf8')),
  ];
  expect(texts.length).toBeGreaterThan(50);
  for (const text of texts) for (const secret of secrets) expect(text).not.toContain(secret);
}, 90_000);

it('--only-index runs exactly the one store at that position (and --no-apply plans only, whatever the file says)', async () => {
  for (const s of sandboxes) s.clearRequestLog();
  const storeRuns = join(dir, '.mbulk', 'fleet', 'stores', name(3), 'runs');
  const runsBefore = existsSync(storeRuns) ? readdirSync(storeRuns).length : 0;
  const r = await mbulk(['fleet', 'run', 'stores-apply.yaml', '--only-index', '3', '--no-apply', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const summary = JSON.parse(r.stdout) as FleetSummary;
  expect(summary).toMatchObject({ ok: true, exitCode: 0, mode: 'plan', onlyIndex: 3 });
  expect(summary.stores.map((s) => [s.index, s.name, s.outcome])).toEqual([[3, name(3), 'planned']]);
  expect(summary.stores[0]?.result).toMatchObject({ ok: true, applied: false });
  // Only its store was asked anything; its plan is a new run of its own.
  expect(sandboxes.map((s) => s.requestLog().length > 0)).toEqual(
    Array.from({ length: STORES }, (_, i) => i === 3),
  );
  expect(readdirSync(storeRuns)).toHaveLength(runsBefore + 1);
  expect(statSync(summary.reportHtml).isFile()).toBe(true);

  const out = await runCli(['fleet', 'run', 'stores.yaml', '--only-index', '12'], env, dir);
  expect(out.code).toBe(2);
  expect(out.stderr).toContain('--only-index 12: ');
  expect(out.stderr).toContain('lists 12 stores, numbered 0 to 11');
}, 60_000);

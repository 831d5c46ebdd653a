import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FleetSummary } from '../../../src/fleet/fleet-summary.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';

// Ctrl-C typed into a terminal (a pseudo-terminal made by util-linux `script`) while a fleet
// applies: the stores running stop cleanly (their writes in flight finish and are journaled,
// exit 130, resumable), the one not started yet stays so, and the fleet exits 130. The stores run
// in process groups of their own, so the terminal's SIGINT reaches them only through the fleet,
// once: a second signal would make them quit at once, without their --json result.
const BIN = resolve('bin/mbulk.js');
const SKUS = ['TEE-LIN-SND-S', 'TEE-LIN-SND-M', 'TEE-LIN-SND-L', 'NLB-SGL-STD', 'KBT', 'PIN-WHT'];

const dir = mkdtempSync(join(tmpdir(), 'mbulk-fleet-int-'));
const sandboxes: RunningSandbox[] = [];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // One stock item per write request and 400 ms a request: each apply takes about 2.4 s, so the
  // second store is still writing when the first has written once, even on a loaded machine (at
  // 150 ms, under a load of 12, the second store finished before the first one's first write).
  for (let i = 0; i < 3; i++)
    sandboxes.push(await startSandbox({ seed: structuredClone(SAMPLE_STORE), latencyMs: 400 }));
  writeFileSync(
    join(dir, 'stock.csv'),
    `sku,quantity\n${SKUS.map((sku, k) => `${sku},${300 + k}`).join('\n')}\n`,
  );
  const stores = sandboxes.map(
    (s, i) => `  - { name: shop-${i}, base_url: "${s.url}", token_env: SHOP_TOKEN, feed: stock.csv }`,
  );
  writeFileSync(
    join(dir, 'stores.yaml'),
    `job: import stock\napply: true\noptions: { batch-size: 1, concurrency: 1 }\nstores:\n${stores.join('\n')}\n`,
  );
  env = {
    PATH: process.env['PATH'],
    TERM: 'xterm',
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    MBULK_LOCK_DIR: join(dir, 'locks'),
    SHOP_TOKEN: (sandboxes[0] as RunningSandbox).token,
  };
});

afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

function appliedWrites(s: RunningSandbox): number {
  return s.requestLog().filter((e) => e.method === 'POST' && e.outcome === 'applied').length;
}

it('Ctrl-C stops every running store cleanly (exit 130, resumable), starts no other, and the fleet exits 130', async () => {
  const [first, second, third] = sandboxes as [RunningSandbox, RunningSandbox, RunningSandbox];
  const child = spawn('script', ['-qfec', `node ${BIN} fleet run stores.yaml --parallel 2`, '/dev/null'], {
    cwd: dir,
    env,
  });
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  const timer = setInterval(() => {
    if (appliedWrites(first) >= 1 && appliedWrites(second) >= 1) {
      clearInterval(timer);
      child.stdin.write('\x03');
    }
  }, 20);
  const code = await new Promise<number>((done) => child.on('close', (c) => done(c ?? -1)));
  clearInterval(timer);
  expect(code, text).toBe(130);

  const runs = join(dir, '.mbulk', 'fleet', 'runs');
  const [fleetRun] = readdirSync(runs);
  const summary = JSON.parse(
    readFileSync(join(runs, fleetRun as string, 'summary.json'), 'utf8'),
  ) as FleetSummary;
  expect(summary.exitCode).toBe(130);
  expect(summary.stores.map((s) => [s.name, s.outcome, s.exitCode])).toEqual([
    ['shop-0', 'interrupted', 130],
    ['shop-1', 'interrupted', 130],
    ['shop-2', 'not started', 130],
  ]);
  expect(appliedWrites(third)).toBe(0);
  expect(third.requestLog()).toHaveLength(0);
  for (const [i, s] of summary.stores.slice(0, 2).entries()) {
    // One SIGTERM: the store stopped cleanly and said so in its --json result, journaled and resumable.
    expect(s.result).toMatchObject({ applied: true, status: 'interrupted' });
    const runsDir = join(dir, '.mbulk', 'fleet', 'stores', `shop-${i}`, 'runs');
    // The CLI's own headline: how far the store's run got, and how to continue it.
    expect(s.message).toMatch(new RegExp(`^Interrupted: \\d+ of ${SKUS.length} written`));
    expect(s.message?.endsWith(` · continue with: mbulk runs resume ${s.runId} --runs-dir ${runsDir}`)).toBe(
      true,
    );
    expect(appliedWrites(sandboxes[i] as RunningSandbox)).toBeLessThan(SKUS.length);
  }
  // The resume line works as printed, and writes each remaining item once.
  const shop0 = summary.stores[0] as FleetSummary['stores'][number];
  const resumed = await new Promise<{ code: number; out: string }>((done) => {
    const r = spawn(
      process.execPath,
      [
        BIN,
        'runs',
        'resume',
        shop0.runId as string,
        '--runs-dir',
        join(dir, '.mbulk', 'fleet', 'stores', 'shop-0', 'runs'),
        '--yes',
      ],
      { cwd: dir, env: { ...env, MERCHANT_API_URL: first.url, MERCHANT_API_TOKEN: first.token } },
    );
    let out = '';
    r.stdout.on('data', (d: Buffer) => (out += d.toString()));
    r.stderr.on('data', (d: Buffer) => (out += d.toString()));
    r.on('close', (c) => done({ code: c ?? -1, out }));
  });
  expect(resumed.code, resumed.out).toBe(0);
  expect(appliedWrites(first)).toBe(SKUS.length);
  expect(text).toContain('shop-2: not started: the fleet was interrupted; run it again to do this store');
}, 90_000);

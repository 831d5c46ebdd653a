import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-prune-'));
  env = { HOME: dir, MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
  copyFileSync(resolve('samples/stock.csv'), join(dir, 'stock.csv'));
});
afterEach(async () => {
  await sandbox.close();
});

/** Plans a stock run (dry run) and returns its directory. */
async function planRun(): Promise<string> {
  const r = await runCli(['import', 'stock', 'stock.csv', '--json'], env, dir);
  return r.json<{ runDir: string }>().runDir;
}

function age(runDir: string, days: number): void {
  const file = join(runDir, 'run.json');
  const meta = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const then = new Date(Date.now() - days * 86_400_000).toISOString();
  writeFileSync(file, JSON.stringify({ ...meta, created_at: then, updated_at: then }));
}

it('runs prune --older-than 30d removes only runs last active before then; --dry-run removes nothing', async () => {
  const old = await planRun();
  const recent = await planRun();
  age(old, 45);
  age(recent, 3);

  const dry = await runCli(['runs', 'prune', '--older-than', '30d', '--dry-run'], env, dir);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain(`Would remove 1 run older than 30d from ${join(dir, '.mbulk', 'runs')}`);
  expect(existsSync(old)).toBe(true);

  const pruned = await runCli(['runs', 'prune', '--older-than', '30d'], env, dir);
  expect(pruned.code).toBe(0);
  expect(pruned.stdout).toContain(`  ${old}`);
  expect(existsSync(old)).toBe(false);
  expect(existsSync(recent)).toBe(true);

  const bad = await runCli(['runs', 'prune', '--older-than', 'a month'], env, dir);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--older-than must look like 30d');
});

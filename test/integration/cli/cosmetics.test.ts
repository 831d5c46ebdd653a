import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { captureStream, runCli } from '../../helpers/run-cli.js';

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-cosmetic-'));
  env = { HOME: dir, MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: sandbox.token };
});
afterEach(async () => {
  await sandbox.close();
});

it('mbulk alone prints its hint once', async () => {
  const r = await runCli([], env, dir);
  expect(r.code).toBe(2);
  expect(r.stderr.match(/mbulk --help/g)).toHaveLength(1);
});

it('a fake .xls is not told to pass an option that does not exist', async () => {
  writeFileSync(join(dir, 'stock.xlsx'), 'sku,quantity\nA,1\n');
  const r = await runCli(['import', 'stock', 'stock.xlsx'], env, dir);
  expect(r.code).toBe(2);
  expect(r.stderr).not.toContain('format');
  expect(r.stderr).toContain('rename it to .csv');
  expect(r.stderr.split('\n').filter((l) => l.startsWith('mbulk:'))).toHaveLength(1);
});

it('a stock plan with 14 skipped rows shows 10 and "and 4 more"', async () => {
  const rows = ['sku,quantity'];
  for (let i = 1; i <= 14; i++) {
    sandbox.store.createProduct({
      name: `Untracked ${i}`,
      price: 100,
      sku: `UNT-${i}`,
      inventory_enabled: false,
    });
    rows.push(`UNT-${i},5`);
  }
  writeFileSync(join(dir, 'stock.csv'), `${rows.join('\n')}\n`);
  const r = await runCli(['import', 'stock', 'stock.csv'], env, dir);
  expect(r.stdout.match(/^ {2}skipped row/gm)).toHaveLength(10);
  expect(r.stdout).toContain('  … and 4 more skipped in ');
});

/** The CLI with a stdout that says it is a terminal. */
async function inFakeTerminal(argv: string[], environment: NodeJS.ProcessEnv): Promise<string> {
  const stdout = captureStream();
  Object.assign(stdout.stream, { isTTY: true, columns: 100 });
  await main(argv, { env: environment, cwd: dir, stdout: stdout.stream, stderr: captureStream().stream });
  return stdout.text();
}

it('plan lines are coloured on a terminal, and not with NO_COLOR or without a terminal', async () => {
  writeFileSync(join(dir, 'stock.csv'), 'sku,quantity\nTEE-LIN-SND-S,77\n');
  const coloured = await inFakeTerminal(['import', 'stock', 'stock.csv'], env);
  expect(coloured).toContain('\u001b[33m  row 2: TEE-LIN-SND-S');
  const plain = await inFakeTerminal(['import', 'stock', 'stock.csv'], { ...env, NO_COLOR: '1' });
  expect(plain).toContain('  row 2: TEE-LIN-SND-S');
  expect(plain).not.toContain('\u001b[33m');
  const piped = await runCli(['import', 'stock', 'stock.csv'], env, dir);
  expect(piped.stdout).toContain('  row 2: TEE-LIN-SND-S');
  expect(piped.stdout).not.toContain('\u001b[');
});

it('the orders export counts in the singular when it read one page', async () => {
  // The sample store's 50 orders fit in one page.
  const r = await runCli(['export', 'orders', 'orders.csv'], env, dir);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout + r.stderr).toMatch(/Exported 50 orders · \d+ lines · \d+ checks?.* · 1 page read/);
  expect(r.stdout + r.stderr).not.toContain('1 pages');
});

it('the CLI: a mistyped flag exits 2 with the suggestion; --dry-run is a dry run; --apply --dry-run is a usage error', async () => {
  writeFileSync(join(dir, 'stock.csv'), 'sku,quantity\nNOPE-1,3\n');
  const typo = await runCli(['import', 'stock', 'stock.csv', '--aply'], env, dir);
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain('unknown option --aply (did you mean --apply?)');
  expect(typo.stderr).not.toMatch(/dryRun|Unknown arguments/);
  const both = await runCli(['import', 'stock', 'stock.csv', '--apply', '--dry-run'], env, dir);
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('--apply and --dry-run contradict each other');
  const dry = await runCli(['import', 'stock', 'stock.csv', '--dry-run', '--json'], env, dir);
  expect(dry.stderr).not.toMatch(/unknown option/);
  expect(JSON.parse(dry.stdout)).toMatchObject({ applied: false });
});

it('runs show prints a summary (the full report.md only with --report); runs list shows the input and no zero counts', async () => {
  const planned = await runCli(['import', 'stock', resolve('samples/stock.csv'), '--json'], env, dir);
  const { runId } = JSON.parse(planned.stdout) as { runId: string };
  const show = await runCli(['runs', 'show', runId], env, dir);
  expect(show.code, show.stderr).toBe(0);
  const lines = show.stdout.split('\n');
  expect(lines[0]).toBe(`Run ${runId} · stock · planned`);
  expect(show.stdout).toContain(`Input: ${resolve('samples/stock.csv')}`);
  expect(show.stdout).toContain(`Target: ${sandbox.url}`);
  expect(show.stdout).toMatch(/^Plan: rows \d+/m);
  expect(show.stdout).not.toMatch(/ 0( ·|$)/m);
  expect(show.stdout).toContain(`Apply with: mbulk apply ${runId}`);
  expect(show.stdout).not.toContain('# Import stock');
  expect(lines.length).toBeLessThan(15);
  const full = await runCli(['runs', 'show', runId, '--report'], env, dir);
  expect(full.stdout).toContain('# Import stock');
  expect(full.stdout).toContain(`Apply with: mbulk apply ${runId}`);

  const list = await runCli(['runs', 'list'], env, dir);
  expect(list.stdout).toContain(`  input: ${resolve('samples/stock.csv')}`);
  expect(list.stdout.split('\n')[0]).not.toMatch(/ 0( ·|$)/);
});

it('a sheet whose every row is invalid gets one hint about the likely cause', async () => {
  writeFileSync(join(dir, 'wrong.csv'), 'sku,quantity\nNOPE-1,3\nNOPE-2,4\n');
  const r = await runCli(['import', 'stock', 'wrong.csv'], env, dir);
  expect(r.code).toBe(1);
  expect(r.stderr.match(/^hint: all 2 rows are invalid/gm)).toHaveLength(1);
});

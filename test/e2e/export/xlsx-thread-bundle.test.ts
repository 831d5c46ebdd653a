import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

/**
 * Issue 41: `export orders` to XLSX writes the workbook in a worker thread. The built CLI (one
 * bundle, dist/bundle/main.cjs) must find its worker (dist/bundle/xlsx-thread-worker.cjs) and the
 * library (dist/sheets) its own: a worker left out of the build would only be noticed as a slower
 * export. Witness: `--cpu-prof` writes one profile per thread, and one of them ran the bundled worker.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/mbulk.js');

let sandbox: RunningSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({ generate: { orders: 300, products: 20, customers: 30, seed: 5 } });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-xlsx-thread-'));
});
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

function node(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: dir,
      XDG_DATA_HOME: join(dir, '.data'),
      MERCHANT_API_URL: sandbox.url,
      MERCHANT_API_TOKEN: sandbox.token,
      ...env,
    },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, out })));
}

it('the built CLI writes the workbook in its bundled worker thread', async () => {
  const prof = join(dir, 'prof');
  const r = await node([`--cpu-prof`, `--cpu-prof-dir=${prof}`, BIN, 'export', 'orders', 'orders.xlsx'], {});
  expect(r.code, r.out).toBe(0);
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(join(dir, 'orders.xlsx'));
  expect(book.getWorksheet('orders')?.rowCount).toBe(301);
  const threads = readdirSync(prof).map((f) => readFileSync(join(prof, f), 'utf8'));
  const worker = threads.filter((p) => p.includes('dist/bundle/xlsx-thread-worker.cjs'));
  expect(worker).toHaveLength(1);
  expect(readFileSync(join(ROOT, 'dist/bundle/xlsx-thread-worker.cjs')).every((byte) => byte < 0x80)).toBe(
    true,
  );
}, 60_000);

it('the library finds its worker beside it in dist/sheets', async () => {
  const url = new URL('dist/sheets/xlsx-thread-writer.js', `file://${ROOT}/`).href;
  const r = await node([
    '--input-type=module',
    '-e',
    `const m = await import(${JSON.stringify(url)}); console.log(m.xlsxThreadEntry()?.pathname);`,
  ]);
  expect(r.code, r.out).toBe(0);
  expect(r.out.trim()).toBe(join(ROOT, 'dist/sheets/xlsx-thread-worker.js'));
});

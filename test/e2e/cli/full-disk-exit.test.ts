import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

// A full disk during an export or an apply: exit 5 (a local failure), like the journal's own, with
// a message naming the file, and for an apply the run and its journal. The disk is a small tmpfs
// this test mounts and removes itself (CI runs as root). Where mounting is impossible (a developer
// without root), the same writes go to a read-only directory instead (EACCES, also exit 5), said
// on the console.

let sandbox: RunningSandbox;
let work: string;
let disk: string;
let mounted = false;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  work = mkdtempSync(join(tmpdir(), 'mbulk-full-disk-'));
  disk = join(work, 'disk');
  mkdirSync(disk);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', disk], { stdio: 'ignore' });
    mounted = true;
  } catch {
    console.warn('full-disk-exit: cannot mount a tmpfs here; testing with a read-only directory (EACCES)');
  }
  env = {
    HOME: work,
    XDG_DATA_HOME: join(work, 'data'),
    MERCHANT_API_URL: sandbox.url,
    MERCHANT_API_TOKEN: sandbox.token,
    MBULK_LOCK_DIR: join(work, 'locks'),
  };
});
afterAll(async () => {
  await sandbox.close();
  if (mounted) execFileSync('umount', ['-l', disk]);
  chmodSync(disk, 0o755);
  rmSync(work, { recursive: true, force: true });
});

/** Makes the disk refuse every new write: fills the tmpfs, or makes the directory read-only. */
function fillDisk(): void {
  if (!mounted) {
    chmodSync(disk, 0o555);
    return;
  }
  const fd = openSync(join(disk, 'filler'), 'a');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    closeSync(fd);
  }
}

function freeDisk(): void {
  if (mounted) rmSync(join(disk, 'filler'), { force: true });
  else chmodSync(disk, 0o755);
}

const code = () => (mounted ? 'ENOSPC' : 'EACCES');

it('an export into a full disk exits 5 naming the file and the cause', async () => {
  fillDisk();
  try {
    for (const [what, name] of [
      ['products', 'products.csv'],
      ['products', 'products.xlsx'],
      ['orders', 'orders.csv'],
    ] as const) {
      const r = await runCli(['export', what, join(disk, name)], env, work);
      expect(r.code, r.stderr).toBe(5);
      // orders.csv, or the orders-summary.csv written beside it first.
      expect(r.stderr).toContain(`mbulk: cannot write ${join(disk, name.replace(/\.\w+$/, ''))}`);
      expect(r.stderr).toContain(`(${code()})`);
    }
  } finally {
    freeDisk();
  }
});

it('an apply stopped by a full disk exits 5 naming the run and its journal, never the word RUN', async () => {
  const runsDir = join(disk, 'runs');
  const sheet = join(work, 'stock.csv');
  execFileSync('sh', ['-c', `printf 'sku,quantity\\nTEE-LIN-SND-S,77\\n' > ${sheet}`]);
  const planned = await runCli(['import', 'stock', sheet, '--runs-dir', runsDir, '--json'], env, work);
  expect(planned.code, planned.stderr).toBe(0);
  const runId = planned.json<{ runId: string }>().runId;
  fillDisk();
  try {
    const r = await runCli(['apply', runId, '--runs-dir', runsDir, '--yes'], env, work);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(`mbulk runs resume ${runId}`);
    expect(r.stderr).toContain(join(runsDir, runId, 'journal.ndjson'));
    expect(r.stderr).not.toMatch(/\bRUN\b/);
  } finally {
    freeDisk();
  }
});

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/apply/journal.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const child = path.join(here, 'fixtures', 'slow-ops-child.ts');
const root = path.resolve(here, '../../..');
const N = 24;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-kill-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function start(): {
  proc: ChildProcess;
  exited: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>;
} {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, dir, String(N)], { cwd: root });
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => proc.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { proc, exited };
}

function lines(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { key: string }).key);
}

describe('SIGKILL in the middle of applying, then resume', () => {
  it('applies every operation exactly once overall', async () => {
    const first = start();
    const applied = path.join(dir, 'server-applied.ndjson');
    const deadline = Date.now() + 20_000;
    while (lines(applied).length < 6) {
      if (Date.now() > deadline) throw new Error(`child made no progress: ${(await first.exited).stderr}`);
      await new Promise((r) => setTimeout(r, 3));
    }
    first.proc.kill('SIGKILL');
    const killed = await first.exited;
    expect(killed.signal).toBe('SIGKILL');

    // the kill left operations whose request was applied but whose answer was lost
    const afterKill = readJournal(path.join(dir, 'journal.ndjson'));
    const unknown = [...afterKill.states].filter(([, s]) => s.status === 'unknown').map(([k]) => k);
    expect(unknown.length).toBeGreaterThan(0);
    const appliedBeforeResume = lines(applied);
    expect(appliedBeforeResume.length).toBeLessThan(N);

    const second = start();
    const resumed = await second.exited;
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      status: 'completed',
      counts: { done: N, failed: 0, unknown: 0 },
    });

    // the witness: every operation took effect exactly once
    const effects = lines(applied);
    expect(effects).toHaveLength(N);
    expect(new Set(effects).size).toBe(N);
    // non-idempotent operations were never sent twice (reconciled instead)
    const deltaRequests = lines(path.join(dir, 'server-requests.ndjson')).filter((k) =>
      k.startsWith('delta-'),
    );
    expect(deltaRequests).toHaveLength(N / 2);
    expect(new Set(deltaRequests).size).toBe(N / 2);

    const final = readJournal(path.join(dir, 'journal.ndjson'));
    expect([...final.states.values()].every((s) => s.status === 'done')).toBe(true);
    expect(final.states.size).toBe(N);
  });
});

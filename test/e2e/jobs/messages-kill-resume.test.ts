import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyMessageRun, planMessageSend } from '../../../src/jobs/messages/message-send.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../src/sandbox/server.js';

// `mbulk messages send` killed for real: a child process (test/fixtures/messages/send-child.ts)
// applies the run and is SIGKILLed midway; the resume in this process must deliver each
// recipient exactly once. The in-process cases are in test/integration/jobs/messages.test.ts.
const ROOT = join(import.meta.dirname, '../../..');
const SAMPLE_STORE = join(ROOT, 'samples/store.json');
const CHILD = join(ROOT, 'test/fixtures/messages/send-child.ts');

function csv(rows: string[][]): string {
  return `${Papa.unparse(rows)}\r\n`;
}

function readResults(file: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
}

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function setup(options: SandboxOptions = {}) {
  sandbox = await startSandbox({ seed: SAMPLE_STORE, ...options });
  const client = new MerchantClient({
    baseUrl: sandbox.url,
    token: sandbox.token,
    retryDelay: { initialDelayMs: 5, maxDelayMs: 50 },
  });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-messages-'));
  return { s: sandbox, client, dir, runsRoot: join(dir, '.mbulk', 'runs') };
}

function sends(s: RunningSandbox) {
  return s.requestLog().filter((e) => e.method === 'POST' && e.path.startsWith('/api/v2/messages'));
}

/** `n` distinct Malaysian mobile numbers, written as people do (national format). */
function phones(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const digits = String(i).padStart(6, '0');
    return `012-5${digits.slice(0, 2)} ${digits.slice(2)}`;
  });
}

it('a send killed with SIGKILL midway and resumed delivers each recipient exactly once', async () => {
  const { s, client, dir, runsRoot } = await setup({ latencyMs: 120 });
  const file = join(dir, 'to.csv');
  const numbers = phones(60);
  writeFileSync(
    file,
    csv([['to', 'name', 'order_number'], ...numbers.map((p, i) => [p, `C${i}`, `${2000 + i}`])]),
  );
  const planned = await planMessageSend({
    client,
    file,
    runsRoot,
    target: 'test',
    template: 'order_update',
  });
  expect(planned.file.plan.sends).toHaveLength(60);

  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, planned.run.dir, s.url, s.token, '3'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let childErr = '';
  child.stderr.on('data', (c: Buffer) => (childErr += c.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code)),
  );
  const deadline = Date.now() + 60_000;
  while (s.store.messages().length < 10) {
    if (Date.now() > deadline) throw new Error(`the child sent nothing: ${childErr}`);
    if (child.exitCode !== null) throw new Error(`the child exited early: ${childErr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  // Requests in flight when the child died still land (the sandbox acts after its latency).
  await new Promise((r) => setTimeout(r, 400));
  const beforeResume = s.store.messages().length;
  expect(beforeResume).toBeGreaterThanOrEqual(10);
  expect(beforeResume).toBeLessThan(60);
  expect(RunDirectory.load(planned.run.dir).meta.status).toBe('applying');

  s.clearRequestLog();
  const resumed = await applyMessageRun(RunDirectory.load(planned.run.dir), { client, concurrency: 8 });
  // Sends in flight at the kill were resent under their keys and answered from the sandbox's memory.
  const replayed = sends(s).filter((e) => e.outcome === 'replayed').length;
  expect(replayed).toBeGreaterThanOrEqual(1);
  expect(resumed).toMatchObject({ status: 'completed', sent: 60, failed: 0 });
  expect(resumed.reused).toBeGreaterThan(0);
  const delivered = s.store.messages();
  expect(delivered).toHaveLength(60);
  const perPhone = new Map<string, number>();
  for (const m of delivered) perPhone.set(m.to, (perPhone.get(m.to) ?? 0) + 1);
  expect([...perPhone.values()].every((n) => n === 1)).toBe(true);
  expect(perPhone.size).toBe(60);
  expect(RunDirectory.load(planned.run.dir).meta.status).toBe('applied');
  expect(readdirSync(planned.run.dir)).toContain('results.csv');
  expect(readResults(planned.run.file('results')).filter((x) => x['outcome'] === 'created')).toHaveLength(60);
}, 120_000);

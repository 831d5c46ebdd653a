import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { RunDirectory } from '../../../src/apply/run-directory.js';
import { applyMessageRun, planMessageSend } from '../../../src/jobs/messages/message-send.js';
import { csv, messageSandboxes, phones, readResults, sends } from '../../helpers/message-sandbox.js';

// `mbulk messages send` killed for real: a child process (test/fixtures/messages/send-child.ts)
// applies the run and is SIGKILLed midway; the resume in this process must deliver each
// recipient exactly once. The in-process cases are in test/integration/jobs/messages.test.ts.
const ROOT = join(import.meta.dirname, '../../..');
const CHILD = join(ROOT, 'test/fixtures/messages/send-child.ts');

const setup = messageSandboxes();

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

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

// Issue 37: a run's identity across invocations, for templates create and messages send. The
// built binary, run again as a cron job or a person would, with the sandbox's request log as the
// witness of what was sent: a sheet sent (submitted) once is refused the second time, naming the
// run and --again; one killed midway is continued, never planned again.
const BIN = resolve('bin/mbulk.js');
const SAMPLE_STORE = resolve('samples/store.json');

let sandbox: RunningSandbox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function setUp(options: { latencyMs?: number } = {}) {
  const s = await startSandbox({ seed: SAMPLE_STORE, ...options });
  sandbox = s;
  const d = mkdtempSync(join(tmpdir(), 'mbulk-rerun-msg-'));
  dir = d;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: d,
    XDG_DATA_HOME: join(d, 'data'),
    MERCHANT_API_URL: s.url,
    MERCHANT_API_TOKEN: s.token,
    MBULK_LOCK_DIR: join(d, 'locks'),
  };
  return { s, dir: d, env };
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `mbulk ARGS` as a child process; `killWhen` (asked every 5 ms) kills it with SIGKILL. */
function mbulk(args: string[], cwd: string, env: NodeJS.ProcessEnv, killWhen?: () => boolean): Promise<Exit> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let timer: NodeJS.Timeout | undefined;
  if (killWhen !== undefined) {
    timer = setInterval(() => {
      if (killWhen()) {
        clearInterval(timer);
        child.kill('SIGKILL');
      }
    }, 5);
  }
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      clearInterval(timer);
      done({ code, signal, stdout, stderr });
    }),
  );
}

/** Writes the sandbox acted on, to paths starting with `prefix`. */
function writesTo(s: RunningSandbox, prefix: string) {
  return s
    .requestLog()
    .filter(
      (e) =>
        e.method === 'POST' &&
        e.path.startsWith(prefix) &&
        (e.outcome === 'applied' || e.outcome === 'dropped_after'),
    );
}

/** `n` distinct Malaysian mobile numbers, written as people do. */
function phones(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const digits = String(i).padStart(6, '0');
    return `012-5${digits.slice(0, 2)} ${digits.slice(2)}`;
  });
}

function recipients(d: string, n: number): string[] {
  const numbers = phones(n);
  writeFileSync(
    join(d, 'recipients.csv'),
    `to,name,order_number\n${numbers.map((p, i) => `${p},C${i},${3000 + i}`).join('\n')}\n`,
  );
  return numbers;
}

function templatesSheet(d: string, n: number): void {
  const rows = Array.from(
    { length: n },
    (_, i) => `ready_${i},UTILITY,en,"Your order is ready for pickup at counter ${i}."`,
  );
  writeFileSync(join(d, 'templates.csv'), `name,category,language,body\n${rows.join('\n')}\n`);
}

function perRecipient(s: RunningSandbox): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of s.store.messages()) counts.set(m.to, (counts.get(m.to) ?? 0) + 1);
  return counts;
}

it('messages send of the same sheet twice: the second exits 3 naming the run and --again, and sends nothing', async () => {
  const { s, dir: d, env } = await setUp();
  recipients(d, 6);
  const args = [
    'messages',
    'send',
    'recipients.csv',
    '--template',
    'order_update',
    '--apply',
    '--yes',
    '--json',
  ];

  const first = await mbulk(args, d, env);
  expect(first.code, first.stderr).toBe(0);
  const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
  const sent = writesTo(s, '/api/v2/messages').length;
  expect(sent).toBe(6);

  // Twice more, as a retried cron job would: refused each time, nothing sent.
  for (let i = 0; i < 2; i++) {
    const again = await mbulk(args, d, env);
    expect(again.code, again.stderr).toBe(3);
    expect(again.stderr).toMatch(
      new RegExp(
        `recipients\\.csv \\(sha256 [0-9a-f]{8}…\\) was applied to this store by run ${runId} at \\S+: 6 of 6 messages; --resend sends it once more \\(--again plans it again without the recipients it sent\\)`,
      ),
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, refused: 'already-applied', run: runId });
    expect(writesTo(s, '/api/v2/messages')).toHaveLength(sent);
  }
  expect([...perRecipient(s).values()].every((n) => n === 1)).toBe(true);

  // Another template is another input: not refused by this run.
  const other = await mbulk(
    ['messages', 'send', 'recipients.csv', '--template', 'payment_reminder', '--json'],
    d,
    env,
  );
  expect(other.stderr).not.toContain('already-applied');
  expect(other.stderr).not.toContain(`by run ${runId}`);

  // --again plans it again: the recipients sent already are skipped, so still nothing is sent.
  const planned = await mbulk([...args, '--again'], d, env);
  expect(planned.code, planned.stderr).toBe(0);
  expect(writesTo(s, '/api/v2/messages')).toHaveLength(sent);
  // --resend sends it once more, to every recipient.
  const resent = await mbulk([...args, '--resend'], d, env);
  expect(resent.code, resent.stderr).toBe(0);
  expect(writesTo(s, '/api/v2/messages')).toHaveLength(2 * sent);
}, 60_000);

it('messages send killed midway, run again with the same command: continues its run, each recipient gets one message', async () => {
  const { s, dir: d, env } = await setUp({ latencyMs: 80 });
  const numbers = recipients(d, 24);
  const args = [
    'messages',
    'send',
    'recipients.csv',
    '--template',
    'order_update',
    '--apply',
    '--yes',
    '--json',
    '--concurrency',
    '1',
  ];

  const killed = await mbulk(args, d, env, () => writesTo(s, '/api/v2/messages').length >= 5);
  expect(killed.signal).toBe('SIGKILL');
  // A send in flight at the kill still lands (the sandbox acts after its latency).
  await new Promise((r) => setTimeout(r, 300));
  const before = s.store.messages().length;
  expect(before).toBeGreaterThanOrEqual(5);
  expect(before).toBeLessThan(numbers.length);

  const rerun = await mbulk(args, d, env);
  expect(rerun.code, rerun.stderr).toBe(0);
  const result = JSON.parse(rerun.stdout) as { runId: string; continuedRun: string };
  expect(result.continuedRun).toBe(result.runId);
  expect(rerun.stdout + rerun.stderr).not.toContain('Plan messages');
  const counts = perRecipient(s);
  expect(counts.size).toBe(numbers.length);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);

  // Finished, the same command is refused.
  const third = await mbulk(args, d, env);
  expect(third.code).toBe(3);
  expect(third.stderr).toContain(`by run ${result.runId}`);
  expect(s.store.messages()).toHaveLength(numbers.length);
}, 60_000);

it('templates create of the same sheet twice: the second exits 3 naming the run and --again, and submits nothing', async () => {
  const { s, dir: d, env } = await setUp();
  templatesSheet(d, 3);
  const args = ['templates', 'create', 'templates.csv', '--apply', '--yes', '--json'];

  const first = await mbulk(args, d, env);
  expect(first.code, first.stderr).toBe(0);
  const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
  const submitted = writesTo(s, '/api/v2/message_templates').length;
  expect(submitted).toBe(3);

  for (let i = 0; i < 2; i++) {
    const again = await mbulk(args, d, env);
    expect(again.code, again.stderr).toBe(3);
    expect(again.stderr).toMatch(
      new RegExp(
        `templates\\.csv \\(sha256 [0-9a-f]{8}…\\) was applied to this store by run ${runId} at \\S+: 3 of 3 templates; --again plans it again`,
      ),
    );
    expect(writesTo(s, '/api/v2/message_templates')).toHaveLength(submitted);
  }
}, 60_000);

it('templates create killed midway, run again with the same command: continues its run, each template created once', async () => {
  const { s, dir: d, env } = await setUp({ latencyMs: 80 });
  templatesSheet(d, 12);
  const args = ['templates', 'create', 'templates.csv', '--apply', '--yes', '--json', '--concurrency', '1'];

  const killed = await mbulk(args, d, env, () => writesTo(s, '/api/v2/message_templates').length >= 3);
  expect(killed.signal).toBe('SIGKILL');
  await new Promise((r) => setTimeout(r, 300));
  const before = writesTo(s, '/api/v2/message_templates').length;
  expect(before).toBeLessThan(12);

  const rerun = await mbulk(args, d, env);
  expect(rerun.code, rerun.stderr).toBe(0);
  const result = JSON.parse(rerun.stdout) as { runId: string; continuedRun: string };
  expect(result.continuedRun).toBe(result.runId);
  // Every template created once, and none tried twice (names are unique: a second create of one
  // would be a 409; a create in flight at the kill is answered from the sandbox's memory of its key).
  for (let i = 0; i < 12; i++) expect(s.store.getTemplate(`ready_${i}`)?.name).toBe(`ready_${i}`);
  const posts = s
    .requestLog()
    .filter((e) => e.method === 'POST' && e.path.startsWith('/api/v2/message_templates'));
  expect(posts.filter((e) => e.outcome === 'applied')).toHaveLength(12);
  expect(posts.filter((e) => e.status === 409)).toHaveLength(0);
}, 60_000);

import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/server.js';
import { jsonOf, mbulk, processSandbox, type Exit, type RunResult } from '../../helpers/cli-process.js';

// Issue 37: a run's identity across invocations, for templates create and messages send. The
// built binary, run again as a cron job or a person would, with the sandbox's request log as the
// witness of what was sent: a sheet sent (submitted) once is refused the second time, naming the
// run and --again; one killed midway is continued, never planned again.
const SAMPLE_STORE = resolve('samples/store.json');

const sandboxFor = processSandbox('mbulk-rerun-msg-');

async function setUp(options: { latencyMs?: number } = {}) {
  return sandboxFor({ seed: SAMPLE_STORE, ...options });
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

/**
 * `args` applied once (`count` writes to `path`), then twice more as a retried cron job would:
 * each exits 3 with `refusal(runId)` on stderr (and passes `check`), and nothing more is written.
 */
async function appliedThenRefused(
  s: RunningSandbox,
  d: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  write: { path: string; count: number },
  refusal: (runId: string) => string,
  check: (again: Exit, runId: string) => void = () => {},
): Promise<{ runId: string; written: number }> {
  const first = await mbulk(args, d, env);
  expect(first.code, first.stderr).toBe(0);
  const runId = jsonOf<{ runId: string }>(first).runId;
  const written = writesTo(s, write.path).length;
  expect(written).toBe(write.count);

  for (let i = 0; i < 2; i++) {
    const again = await mbulk(args, d, env);
    expect(again.code, again.stderr).toBe(3);
    expect(again.stderr).toMatch(new RegExp(refusal(runId)));
    check(again, runId);
    expect(writesTo(s, write.path)).toHaveLength(written);
  }
  return { runId, written };
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

  // Once, then twice more as a retried cron job would: refused each time, nothing sent.
  const { runId, written: sent } = await appliedThenRefused(
    s,
    d,
    env,
    args,
    { path: '/api/v2/messages', count: 6 },
    (run) =>
      `recipients\\.csv \\(sha256 [0-9a-f]{8}…\\) was applied to this store by run ${run} at \\S+: 6 of 6 messages; --resend sends it once more \\(--again plans it again without the recipients this template was already sent to\\)`,
    (again, run) => expect(jsonOf(again)).toMatchObject({ ok: false, refused: 'already-applied', run }),
  );
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
  const result = jsonOf<RunResult>(rerun);
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

  await appliedThenRefused(
    s,
    d,
    env,
    args,
    { path: '/api/v2/message_templates', count: 3 },
    (run) =>
      `templates\\.csv \\(sha256 [0-9a-f]{8}…\\) was applied to this store by run ${run} at \\S+: 3 of 3 templates; --again plans it again`,
  );
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
  const result = jsonOf<RunResult>(rerun);
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

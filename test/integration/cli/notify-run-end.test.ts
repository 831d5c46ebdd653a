import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { cliSandbox } from '../../helpers/cli-sandbox.js';
import { localServers } from '../../helpers/local-servers.js';
import { runCli } from '../../helpers/run-cli.js';

// --notify-url on every command that ends a run: apply, runs resume, runs rollback --apply (the
// imports, messages send and templates create share the import flow's).
const t = cliSandbox('mbulk-notify-');
const listen = localServers();
let received: Record<string, unknown>[];
let hook: string;
beforeEach(async () => {
  received = [];
  hook = await listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(200).end('ok');
      });
    }),
  );
});

/** Stock batch writes the store applied. */
function stockWrites(): number {
  return t.sandbox
    .requestLog()
    .filter(
      (e) =>
        e.method === 'POST' &&
        e.path.startsWith('/api/v2/inventory_items/batch_update') &&
        e.outcome === 'applied',
    ).length;
}

async function plan(file: string, rows: string): Promise<string> {
  writeFileSync(join(t.dir, file), `sku,quantity\n${rows}\n`);
  const r = await runCli(['import', 'stock', file, '--json'], t.env, t.dir);
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ runId: string }>().runId;
}

it('a refused resume and a successful one each post their summary; --notify-on failure skips the success', async () => {
  const drifted = await plan('a.csv', 'TEE-LIN-SND-M,46');
  // The store changes under the planned run: resuming it is refused (exit 3), and says so.
  writeFileSync(join(t.dir, 'c.csv'), 'sku,quantity\nTEE-LIN-SND-M,47\n');
  expect((await runCli(['import', 'stock', 'c.csv', '--apply', '--yes'], t.env, t.dir)).code).toBe(0);
  const writesBefore = stockWrites();
  const refused = await runCli(
    ['runs', 'resume', drifted, '--yes', '--notify-url', hook, '--notify-on', 'failure'],
    t.env,
    t.dir,
  );
  expect(refused.code).toBe(3);
  expect(stockWrites()).toBe(writesBefore);
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({
    command: 'mbulk runs resume',
    exitCode: 3,
    ok: false,
    refused: 'drift',
    runId: drifted,
  });
  expect(received[0]?.['text']).toBe(`mbulk runs resume: refused (exit 3) · run ${drifted} · refused: drift`);

  // A resume that writes: posted with `always`, not with `failure`.
  const good = await plan('d.csv', 'TEE-LIN-SND-M,45');
  const quiet = await runCli(
    ['runs', 'resume', good, '--yes', '--notify-url', hook, '--notify-on', 'failure'],
    t.env,
    t.dir,
  );
  expect(quiet.code, quiet.stderr).toBe(0);
  expect(received).toHaveLength(1);
  expect(stockWrites()).toBe(writesBefore + 1);
  const again = await plan('e.csv', 'TEE-LIN-SND-M,44');
  const resumed = await runCli(['runs', 'resume', again, '--yes', '--notify-url', hook], t.env, t.dir);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(stockWrites()).toBe(writesBefore + 2);
  expect(received).toHaveLength(2);
  expect(received[1]).toMatchObject({
    command: 'mbulk runs resume',
    exitCode: 0,
    ok: true,
    runId: again,
    status: 'completed',
    updated: 1,
  });
  expect(received[1]?.['text']).toMatch(new RegExp(`^mbulk runs resume: ok \\(exit 0\\) · run ${again}`));

  // A resume that errors before writing (the run was already applied: exit 2) posts the error.
  const twice = await runCli(['runs', 'resume', again, '--yes', '--notify-url', hook], t.env, t.dir);
  expect(twice.code).toBe(2);
  expect(received).toHaveLength(3);
  expect(received[2]).toMatchObject({ command: 'mbulk runs resume', exitCode: 2, ok: false });
  expect(received[2]?.['text']).toMatch(
    /^mbulk runs resume: failed \(exit 2\) · run \S+ was already applied/,
  );
});

it('apply and runs rollback --apply post their summary; a dry-run rollback does not; a dead webhook changes nothing', async () => {
  const runId = await plan('a.csv', 'TEE-LIN-SND-M,46');
  const applied = await runCli(['apply', runId, '--yes', '--notify-url', hook], t.env, t.dir);
  expect(applied.code, applied.stderr).toBe(0);
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ command: 'mbulk apply', exitCode: 0, ok: true, runId });
  expect(received[0]?.['text']).toMatch(new RegExp(`^mbulk apply: ok \\(exit 0\\) · run ${runId}`));

  const dry = await runCli(['runs', 'rollback', runId, '--notify-url', hook], t.env, t.dir);
  expect(dry.code, dry.stderr).toBe(0);
  expect(received).toHaveLength(1);

  const writes = stockWrites();
  const rolled = await runCli(
    ['runs', 'rollback', runId, '--apply', '--yes', '--notify-url', hook],
    t.env,
    t.dir,
  );
  expect(rolled.code, rolled.stderr).toBe(0);
  expect(stockWrites()).toBe(writes + 1);
  expect(received).toHaveLength(2);
  expect(received[1]).toMatchObject({
    command: 'mbulk runs rollback',
    exitCode: 0,
    ok: true,
    applied: true,
    source: runId,
    restored: 1,
  });
  expect(received[1]?.['text']).toMatch(
    /^mbulk runs rollback: ok \(exit 0\) · run \S+ · restored 1 · failed 0 · writeRequests 1$/,
  );

  // A webhook that cannot be reached is a warning; the exit code stays the run's (3: drift).
  const closed = createServer();
  const gone = await listen(closed);
  await new Promise((done) => closed.close(done));
  const stale = await plan('b.csv', 'TEE-LIN-SND-M,40');
  writeFileSync(join(t.dir, 'c.csv'), 'sku,quantity\nTEE-LIN-SND-M,41\n');
  expect((await runCli(['import', 'stock', 'c.csv', '--apply', '--yes'], t.env, t.dir)).code).toBe(0);
  const unheard = await runCli(['apply', stale, '--yes', '--notify-url', gone], t.env, t.dir);
  expect(unheard.code).toBe(3);
  expect(unheard.stderr).toContain(`mbulk: warning: notification to ${gone} failed`);
});

it('messages send (through the import flow) posts a refusal', async () => {
  writeFileSync(join(t.dir, 'to.csv'), 'to,name,code\n012-345 6789,Aina,BEANS15\n');
  const r = await runCli(
    ['messages', 'send', 'to.csv', '--template', 'weekend_promo', '--apply', '--yes', '--notify-url', hook],
    t.env,
    t.dir,
  );
  expect(r.code).toBe(3);
  expect(
    t.sandbox.requestLog().filter((e) => e.method === 'POST' && e.path.startsWith('/api/v2/messages')),
  ).toEqual([]);
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ command: 'mbulk messages send', exitCode: 3, ok: false });
  expect(received[0]?.['text']).toMatch(/^mbulk messages send: refused \(exit 3\)/);
});

it('the text a chat shows holds no control character from the input: a line feed, carriage return or ESC in a file name is shown as its escape', async () => {
  // A feed name that would print a forged line of its own in a chat, and an escape sequence.
  const name = 'gone\u001b[2K\r\nmbulk import stock: ok (exit 0).csv';
  const r = await runCli(['import', 'stock', name, '--apply', '--yes', '--notify-url', hook], t.env, t.dir);
  expect(r.code, r.stderr).toBe(2);
  expect(received).toHaveLength(1);
  const text = String(received[0]?.['text']);
  // One line, the escapes visible: nothing a chat (or a terminal reading the log) acts on.
  expect(text.split('\n')).toHaveLength(1);
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(text).toMatch(
    /^mbulk import stock: failed \(exit 2\) · .*gone\\x1b\[2K\\r\\nmbulk import stock: ok \(exit 0\)\.csv was not found/,
  );
  // The JSON fields keep the text as it is (a JSON string is not a terminal).
  expect(JSON.stringify(received[0])).toContain(JSON.stringify(name).slice(1, -1));
});

import { createServer } from 'node:http';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { describeCommand, LockFile } from '../../../src/apply/lock-file.js';
import { storeLockDir, storeLockFile } from '../../../src/apply/store-lock.js';
import { cliSandbox } from '../../helpers/cli-sandbox.js';
import { localServers } from '../../helpers/local-servers.js';
import { runCli } from '../../helpers/run-cli.js';

// A webhook URL's path is its secret (Slack, Teams, Mattermost), and a feed's query string may
// carry a key: neither is printed, followed elsewhere or kept in a lock file.
const HOOK_SECRET = 'XyZhookSecret42';
const FEED_KEY = 'feedKey9931';

const t = cliSandbox('mbulk-webhook-', {
  sandbox: 'per-file',
  extraEnv: (dir) => ({ MBULK_LOCK_DIR: join(dir, 'locks') }),
});
const listen = localServers();
beforeEach(() => {
  writeFileSync(join(t.dir, 'good.csv'), 'sku,quantity\nTEE-LIN-SND-M,46\n');
});

it('a failed notification names the webhook by scheme and host only', async () => {
  const hook = await listen(createServer((_req, res) => res.writeHead(500).end()));
  const url = `${hook}/services/T000/B000/${HOOK_SECRET}?token=${HOOK_SECRET}`;
  const r = await runCli(
    ['import', 'stock', 'good.csv', '--apply', '--yes', '--notify-url', url],
    t.env,
    t.dir,
  );
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`mbulk: warning: notification to ${hook} failed: the server answered 500`);
  expect(r.stdout + r.stderr).not.toContain(HOOK_SECRET);
  expect(r.stdout + r.stderr).not.toContain('/services');
});

it('a notification is not redirected: the other host hears nothing', async () => {
  let elsewhere = 0;
  const other = await listen(
    createServer((_req, res) => {
      elsewhere++;
      res.writeHead(200).end();
    }),
  );
  const hook = await listen(
    createServer((_req, res) => res.writeHead(307, { location: `${other}/collect` }).end()),
  );
  const r = await runCli(
    ['import', 'stock', 'good.csv', '--apply', '--yes', '--notify-url', `${hook}/${HOOK_SECRET}`],
    t.env,
    t.dir,
  );
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(
    `notification to ${hook} failed: the server answered 307 (a redirect, not followed`,
  );
  expect(elsewhere).toBe(0);
  expect(r.stderr).not.toContain(HOOK_SECRET);
});

it('the store lock file is private (0600) and holds no URL path or query; the refusal prints neither', async () => {
  const me = await runCli(['whoami', '--json'], t.env, t.dir);
  const storeId = me.json<{ store: { id: string } }>().store.id;
  const file = storeLockFile(storeLockDir(t.env), t.sandbox.url.replace(/\/+$/, ''), storeId);
  const argv = [
    'import',
    'stock',
    `https://erp.example/stock.csv?key=${FEED_KEY}`,
    '--apply',
    '--notify-url',
    `https://hooks.example.com/services/T0/B0/${HOOK_SECRET}`,
    `--notify-url=https://hooks.example.com/${HOOK_SECRET}`,
  ];
  const lock = LockFile.acquire(file, { command: describeCommand(argv) });
  try {
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('https://erp.example/…');
    expect(text).toContain('https://hooks.example.com/…');
    for (const secret of [FEED_KEY, HOOK_SECRET, '?key', '/services']) expect(text).not.toContain(secret);
    lock.setRunId('run-1');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const refused = await runCli(['import', 'stock', 'good.csv', '--apply', '--yes'], t.env, t.dir);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('another mbulk is writing to store');
    expect(refused.stderr).toContain('https://erp.example/…');
    for (const secret of [FEED_KEY, HOOK_SECRET]) expect(refused.stderr).not.toContain(secret);
  } finally {
    lock.release();
  }

  // A lock written by an older mbulk holds the whole command line: the refusal still cuts the URLs.
  writeFileSync(
    file,
    JSON.stringify({
      pid: process.pid,
      host: (await import('node:os')).hostname(),
      command: `mbulk import stock https://erp.example/s.csv?key=${FEED_KEY} --notify-url https://hooks.example.com/${HOOK_SECRET}`,
      acquiredAt: new Date().toISOString(),
      token: 'old',
    }),
  );
  const old = await runCli(['import', 'stock', 'good.csv', '--apply', '--yes'], t.env, t.dir);
  expect(old.code).toBe(3);
  for (const secret of [FEED_KEY, HOOK_SECRET]) expect(old.stderr).not.toContain(secret);
  rmSync(file);
});

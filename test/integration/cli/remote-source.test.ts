import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

const SECRET = 'feed-secret-7f3a9c';

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
const servers: Server[] = [];
beforeEach(async () => {
  sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-remote-'));
  env = {
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    MERCHANT_API_URL: sandbox.url,
    MERCHANT_API_TOKEN: sandbox.token,
  };
});
afterEach(async () => {
  await sandbox.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

function listen(server: Server): Promise<string> {
  servers.push(server);
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** Stock writes the store received (batch requests that acted). */
function stockWrites(): number {
  return sandbox
    .requestLog()
    .filter(
      (e) =>
        e.method === 'POST' &&
        e.path.startsWith('/api/v2/inventory_items/batch_update') &&
        e.outcome === 'applied',
    ).length;
}

function allFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}

it('a feed with an ETag: applied, then "unchanged" with no writes, then applied again when it changes; the header is never kept', async () => {
  const feed = { body: 'sku,quantity\nTEE-LIN-SND-S,31\n', etag: '"v1"' };
  const seen: IncomingHttpHeaders[] = [];
  const url = `${await listen(
    createServer((req, res) => {
      seen.push(req.headers);
      if (req.headers['authorization'] !== `Bearer ${SECRET}`) {
        res.writeHead(401).end();
        return;
      }
      if (req.headers['if-none-match'] === feed.etag) {
        res.writeHead(304, { etag: feed.etag }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/csv', etag: feed.etag }).end(feed.body);
    }),
  )}/erp/stock.csv`;
  const args = ['import', 'stock', url, '--apply', '--yes', '--header', `Authorization: Bearer ${SECRET}`];

  const first = await runCli(args, env, dir);
  expect(first.code, first.stderr).toBe(0);
  expect(stockWrites()).toBe(1);

  const second = await runCli(args, env, dir);
  expect(second.code, second.stderr).toBe(0);
  // It names the run that applied it (the first one's), and when.
  const runId = /\d{8}-\d{6}-stock-[0-9a-f]+/.exec(first.stdout)?.[0];
  expect(runId).toBeDefined();
  expect(second.stdout).toMatch(
    new RegExp(`Unchanged since run ${runId} applied it at \\d{4}-\\d\\d-\\d\\dT[^ ]+Z: `),
  );
  expect(second.stdout).toContain(`: ${url}; nothing to do`);
  expect(seen.at(-1)?.['if-none-match']).toBe('"v1"');
  expect(stockWrites()).toBe(1);

  feed.body = 'sku,quantity\nTEE-LIN-SND-S,32\n';
  feed.etag = '"v2"';
  const third = await runCli(args, env, dir);
  expect(third.code, third.stderr).toBe(0);
  expect(stockWrites()).toBe(2);

  // --force runs an unchanged feed anyway (nothing to change in the store: no write).
  const forced = await runCli([...args, '--force'], env, dir);
  expect(forced.code).toBe(0);
  expect(forced.stdout).not.toContain('Unchanged since');

  // The feed is kept in each run directory; the header value is in no file, and never printed.
  const files = allFiles(join(dir, '.mbulk'));
  expect(files.some((f) => /runs\/[^/]+\/input-[^/]+\.csv$/.test(f))).toBe(true);
  for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toContain(SECRET);
  for (const r of [first, second, third, forced]) expect(r.stdout + r.stderr).not.toContain(SECRET);
  expect(allFiles(join(dir, 'data')).every((f) => !readFileSync(f, 'utf8').includes(SECRET))).toBe(true);
});

it('plain http:// to a non-loopback feed is refused (exit 2)', async () => {
  const r = await runCli(['import', 'stock', 'http://erp.example.com/stock.csv'], env, dir);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('refusing plain http:// to erp.example.com');
});

it('--notify-url posts the summary of a successful and of a failed run; a failed notification changes nothing', async () => {
  const received: Record<string, unknown>[] = [];
  const hook = await listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(200).end('ok');
      });
    }),
  );
  writeFileSync(join(dir, 'good.csv'), 'sku,quantity\nTEE-LIN-SND-M,46\n');
  writeFileSync(join(dir, 'bad.csv'), 'sku,quantity\nTEE-LIN-SND-M,lots\n');

  const ok = await runCli(
    ['import', 'stock', 'good.csv', '--apply', '--yes', '--notify-url', hook],
    env,
    dir,
  );
  expect(ok.code).toBe(0);
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ exitCode: 0, ok: true, applied: true, command: 'mbulk import stock' });
  expect(received[0]?.['text']).toMatch(/^mbulk import stock: ok \(exit 0\) · run \S+/);

  // --notify-on failure: nothing for a success, a post for a failure.
  const quiet = await runCli(
    ['import', 'stock', 'good.csv', '--apply', '--yes', '--notify-url', hook, '--notify-on', 'failure'],
    env,
    dir,
  );
  expect(quiet.code).toBe(0);
  expect(received).toHaveLength(1);
  const bad = await runCli(
    ['import', 'stock', 'bad.csv', '--apply', '--yes', '--notify-url', hook, '--notify-on', 'failure'],
    env,
    dir,
  );
  expect(bad.code).toBe(1);
  expect(received).toHaveLength(2);
  expect(received[1]).toMatchObject({ exitCode: 1, ok: false });
  expect(received[1]?.['text']).toMatch(/^mbulk import stock: failed \(exit 1\)/);

  // A webhook that cannot be reached is logged; the exit code is the run's.
  const closed = createServer();
  const gone = await listen(closed);
  await new Promise((done) => closed.close(done));
  servers.splice(servers.indexOf(closed), 1);
  const unheard = await runCli(
    ['import', 'stock', 'bad.csv', '--apply', '--yes', '--notify-url', gone],
    env,
    dir,
  );
  expect(unheard.code).toBe(1);
  expect(unheard.stderr).toContain(`mbulk: warning: notification to ${gone} failed`);
});

import { createServer } from 'node:http';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliSandbox } from '../../helpers/cli-sandbox.js';
import { FEED_CSV, FEED_SECRET, recordingServers, SECRET_HEADERS } from '../../helpers/feed-servers.js';
import { localServers } from '../../helpers/local-servers.js';
import { runCli } from '../../helpers/run-cli.js';

// Feeds (`mbulk import stock URL`): redirects, header values, byte cap and deadlines, against
// servers on 127.0.0.1. One sandbox for the file; each test gets its own working directory. The
// cases that need the built binary in a child process (a certificate trusted at start-up, peak
// memory) are in test/e2e/cli/feed-download-limits.test.ts.

const t = cliSandbox('mbulk-feed-limits-', { sandbox: 'per-file' });
const listen = localServers();

const recording = recordingServers(listen);

/** Every file under ROOT (recursively). */
function allFiles(at: string): string[] {
  if (!existsSync(at)) return [];
  return readdirSync(at).flatMap((name) => {
    const path = join(at, name);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}

it('a redirect to another origin is refused by default, and followed with --follow-redirects without any --header', async () => {
  const other = await recording((res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(FEED_CSV));
  const feed = await recording((res) => res.writeHead(302, { location: `${other.url}/moved.csv?k=1` }).end());

  const refused = await runCli(['import', 'stock', `${feed.url}/stock.csv`, ...SECRET_HEADERS], t.env, t.dir);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`${feed.url}/stock.csv redirects to another origin, ${other.url}`);
  expect(refused.stderr).toContain('--follow-redirects');
  expect(feed.seen[0]?.['x-api-key']).toBe(FEED_SECRET);
  expect(other.seen).toEqual([]);

  const followed = await runCli(
    ['import', 'stock', `${feed.url}/stock.csv`, '--follow-redirects', ...SECRET_HEADERS],
    t.env,
    t.dir,
  );
  expect(followed.code, followed.stderr).toBe(0);
  expect(followed.stdout).toContain('Dry run');
  expect(other.seen).toHaveLength(1);
  const sent = JSON.stringify(other.seen[0]);
  expect(sent).not.toContain(FEED_SECRET);
  expect(other.seen[0]?.['authorization']).toBeUndefined();
  expect(other.seen[0]?.['x-api-key']).toBeUndefined();
});

it('a same-origin redirect keeps the headers; more than 5 redirects stop with exit 2', async () => {
  const feed = await recording((res, path) => {
    if (path === '/stock.csv') res.writeHead(301, { location: '/v2/stock.csv' }).end();
    else if (path === '/v2/stock.csv') res.writeHead(200).end(FEED_CSV);
    else res.writeHead(302, { location: `/loop${path.length}` }).end();
  });
  const r = await runCli(['import', 'stock', `${feed.url}/stock.csv`, ...SECRET_HEADERS], t.env, t.dir);
  expect(r.code, r.stderr).toBe(0);
  expect(feed.seen.map((h) => h['x-api-key'])).toEqual([FEED_SECRET, FEED_SECRET]);

  const loop = await runCli(['import', 'stock', `${feed.url}/loop`], t.env, t.dir);
  expect(loop.code).toBe(2);
  expect(loop.stderr).toContain('more than 5 redirects');
});

it('a --header value with a line break exits 2 naming the header; the value is in no output, JSON, notification or file', async () => {
  const notified: string[] = [];
  const hook = await listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        notified.push(body);
        res.writeHead(200).end();
      });
    }),
  );
  const feed = await recording((res) => res.writeHead(200).end(FEED_CSV));
  writeFileSync(join(t.dir, 'local.csv'), FEED_CSV);
  for (const [source, value] of [
    [`${feed.url}/stock.csv`, `Bearer ${FEED_SECRET}\nline2`],
    [`${feed.url}/stock.csv`, `Bearer ${FEED_SECRET}\r`],
    [`${feed.url}/stock.csv`, `Bearer ${FEED_SECRET}\u2028`],
    ['local.csv', `Bearer ${FEED_SECRET}\nline2`],
  ] as const) {
    const r = await runCli(
      [
        'import',
        'stock',
        source,
        '--apply',
        '--yes',
        '--json',
        '--notify-url',
        hook,
        '--header',
        `Authorization: ${value}`,
      ],
      t.env,
      t.dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--header Authorization: the value holds a line break');
    expect(r.stdout + r.stderr).not.toContain(FEED_SECRET);
  }
  expect(feed.seen).toEqual([]);
  expect(notified).toHaveLength(4);
  for (const body of notified) {
    expect(body).not.toContain(FEED_SECRET);
    expect(JSON.parse(body)).toMatchObject({ exitCode: 2, ok: false });
  }
  for (const f of allFiles(t.dir)) expect(readFileSync(f, 'latin1'), f).not.toContain(FEED_SECRET);
});

it('a declared Content-Length over the cap is refused before the body is read', async () => {
  const feed = await recording((res) => {
    res.writeHead(200, { 'content-length': String(10 * 1000 ** 2) });
    res.end(Buffer.alloc(10 * 1000 ** 2, 'x'));
  });
  const r = await runCli(['import', 'stock', `${feed.url}/big.csv`, '--max-download', '1MB'], t.env, t.dir);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('larger than the --max-download limit of 1 MB');
});

it('a server that never answers, and one that trickles, end at --download-timeout with exit 2', async () => {
  const silent = await listen(createServer(() => {}));
  const quiet = await runCli(
    ['import', 'stock', `${silent}/stock.csv`, '--download-timeout', '1s'],
    t.env,
    t.dir,
  );
  expect(quiet.code).toBe(2);
  expect(quiet.stderr).toMatch(
    /cannot download .*stock\.csv: (it did not finish within the --download-timeout of 1 s|the server sent nothing for 1 s)/,
  );

  // A byte every 100 ms: never idle for long, so only the total deadline can end it.
  const timers: NodeJS.Timeout[] = [];
  const trickle = await listen(
    createServer((_req, res) => {
      res.writeHead(200);
      res.write('sku,quantity\n');
      timers.push(setInterval(() => res.write('1'), 100));
    }),
  );
  const started = Date.now();
  const slow = await runCli(
    ['import', 'stock', `${trickle}/stock.csv`, '--download-timeout', '1500ms'],
    t.env,
    t.dir,
  );
  timers.forEach(clearInterval);
  expect(slow.code).toBe(2);
  expect(slow.stderr).toContain('it did not finish within the --download-timeout of 1.5 s');
  expect(Date.now() - started).toBeLessThan(10_000);
});

it('--max-download and --download-timeout values are checked (exit 2)', async () => {
  const size = await runCli(
    ['import', 'stock', 'https://feed.example/s.csv', '--max-download', 'lots'],
    t.env,
    t.dir,
  );
  expect(size.code).toBe(2);
  expect(size.stderr).toContain('--max-download must be a size such as 50MB');
  const time = await runCli(
    ['import', 'stock', 'https://feed.example/s.csv', '--download-timeout', '0s'],
    t.env,
    t.dir,
  );
  expect(time.code).toBe(2);
  expect(time.stderr).toContain('--download-timeout must be a duration such as 30s');
});

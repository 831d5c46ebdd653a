import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';
import { selfSignedCertificate } from '../../helpers/self-signed-certificate.js';

// Feeds (`mbulk import stock URL`): redirects, header values, byte cap and deadlines, against
// servers on 127.0.0.1. One sandbox for the file; each test gets its own working directory.
const SECRET = 'feed-key-5d1e0b';
const root = resolve(import.meta.dirname, '..', '..', '..');

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
const servers: Server[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({ seed: resolve('samples/store.json') });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mbulk-feed-limits-'));
  env = {
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    MERCHANT_API_URL: sandbox.url,
    MERCHANT_API_TOKEN: sandbox.token,
  };
});
afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
  rmSync(dir, { recursive: true, force: true });
});

function listen(server: Server, scheme = 'http'): Promise<string> {
  servers.push(server);
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () =>
      done(`${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

/** A server recording each request's headers, answering with HANDLER. */
async function recording(
  handler: (res: ServerResponse, path: string) => void,
): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const url = await listen(
    createServer((req, res) => {
      seen.push(req.headers);
      handler(res, req.url ?? '/');
    }),
  );
  return { url, seen };
}

const CSV = 'sku,quantity\nTEE-LIN-SND-S,31\n';
const secretHeaders = ['--header', `X-Api-Key: ${SECRET}`, '--header', `Authorization: Bearer ${SECRET}`];

/** Every file under ROOT (recursively). */
function allFiles(at: string): string[] {
  if (!existsSync(at)) return [];
  return readdirSync(at).flatMap((name) => {
    const path = join(at, name);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}

it('a redirect to another origin is refused by default, and followed with --follow-redirects without any --header', async () => {
  const other = await recording((res) => res.writeHead(200, { 'content-type': 'text/csv' }).end(CSV));
  const feed = await recording((res) => res.writeHead(302, { location: `${other.url}/moved.csv?k=1` }).end());

  const refused = await runCli(['import', 'stock', `${feed.url}/stock.csv`, ...secretHeaders], env, dir);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`${feed.url}/stock.csv redirects to another origin, ${other.url}`);
  expect(refused.stderr).toContain('--follow-redirects');
  expect(feed.seen[0]?.['x-api-key']).toBe(SECRET);
  expect(other.seen).toEqual([]);

  const followed = await runCli(
    ['import', 'stock', `${feed.url}/stock.csv`, '--follow-redirects', ...secretHeaders],
    env,
    dir,
  );
  expect(followed.code, followed.stderr).toBe(0);
  expect(followed.stdout).toContain('Dry run');
  expect(other.seen).toHaveLength(1);
  const sent = JSON.stringify(other.seen[0]);
  expect(sent).not.toContain(SECRET);
  expect(other.seen[0]?.['authorization']).toBeUndefined();
  expect(other.seen[0]?.['x-api-key']).toBeUndefined();
});

it('a same-origin redirect keeps the headers; more than 5 redirects stop with exit 2', async () => {
  const feed = await recording((res, path) => {
    if (path === '/stock.csv') res.writeHead(301, { location: '/v2/stock.csv' }).end();
    else if (path === '/v2/stock.csv') res.writeHead(200).end(CSV);
    else res.writeHead(302, { location: `/loop${path.length}` }).end();
  });
  const r = await runCli(['import', 'stock', `${feed.url}/stock.csv`, ...secretHeaders], env, dir);
  expect(r.code, r.stderr).toBe(0);
  expect(feed.seen.map((h) => h['x-api-key'])).toEqual([SECRET, SECRET]);

  const loop = await runCli(['import', 'stock', `${feed.url}/loop`], env, dir);
  expect(loop.code).toBe(2);
  expect(loop.stderr).toContain('more than 5 redirects');
});

it('an https feed redirected down to plain http:// is refused, even with --follow-redirects: nothing reaches the http server', async () => {
  // A certificate for 127.0.0.1 made now, trusted by the child through NODE_EXTRA_CA_CERTS (read at start-up).
  const tls = selfSignedCertificate(dir, '127.0.0.1', 'IP:127.0.0.1');
  const plain = await recording((res) => res.writeHead(200).end(CSV));
  const httpsSeen: IncomingHttpHeaders[] = [];
  const secure = await listen(
    createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
      httpsSeen.push(req.headers);
      res.writeHead(302, { location: `${plain.url}/stock.csv` }).end();
    }),
    'https',
  );
  const r = await new Promise<{ code: number; stderr: string }>((done) =>
    execFile(
      process.execPath,
      [
        join(root, 'bin', 'mbulk.js'),
        'import',
        'stock',
        `${secure}/stock.csv`,
        '--follow-redirects',
        ...secretHeaders,
      ],
      { cwd: dir, env: { ...process.env, ...env, NODE_EXTRA_CA_CERTS: tls.certFile } },
      (error, _stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr }),
    ),
  );
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(
    `refusing the redirect of ${secure}/stock.csv from https:// down to plain http://`,
  );
  expect(r.stderr).not.toContain(SECRET);
  // The https server got the headers (its own origin); the plain one got nothing at all.
  expect(httpsSeen[0]?.['x-api-key']).toBe(SECRET);
  expect(plain.seen).toEqual([]);
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
  const feed = await recording((res) => res.writeHead(200).end(CSV));
  writeFileSync(join(dir, 'local.csv'), CSV);
  for (const [source, value] of [
    [`${feed.url}/stock.csv`, `Bearer ${SECRET}\nline2`],
    [`${feed.url}/stock.csv`, `Bearer ${SECRET}\r`],
    [`${feed.url}/stock.csv`, `Bearer ${SECRET}\u2028`],
    ['local.csv', `Bearer ${SECRET}\nline2`],
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
      env,
      dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--header Authorization: the value holds a line break');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  }
  expect(feed.seen).toEqual([]);
  expect(notified).toHaveLength(4);
  for (const body of notified) {
    expect(body).not.toContain(SECRET);
    expect(JSON.parse(body)).toMatchObject({ exitCode: 2, ok: false });
  }
  for (const f of allFiles(dir)) expect(readFileSync(f, 'latin1'), f).not.toContain(SECRET);
});

it('a 200 MB feed with --max-download 50MB stops with exit 2 naming the limit, in bounded memory, leaving no download behind', async () => {
  let sent = 0;
  let closed = false;
  const chunk = Buffer.alloc(1 << 20, 'TEE-LIN-SND-S,31\n');
  const feed = await listen(
    createServer((_req, res) => {
      // No Content-Length: the cap must hold while streaming, not only on a declared size.
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write('sku,quantity\n');
      res.on('close', () => (closed = true));
      const pump = () => {
        while (sent < 200 * 2 ** 20 && !closed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!closed) res.end();
      };
      pump();
    }),
  );
  // The built binary, with its peak memory written at exit by a preloaded script.
  const rssFile = join(dir, 'maxrss');
  const preload = join(dir, 'maxrss.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const r = await new Promise<{ code: number; stderr: string }>((done) =>
    execFile(
      process.execPath,
      [
        '--require',
        preload,
        join(root, 'bin', 'mbulk.js'),
        'import',
        'stock',
        `${feed}/big.csv`,
        '--max-download',
        '50MB',
      ],
      { cwd: dir, env: { ...process.env, ...env, TMPDIR: tmp } },
      (error, _stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr }),
    ),
  );
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(
    `cannot download ${feed}/big.csv: it is larger than the --max-download limit of 50 MB`,
  );
  // Stopped near the cap (what was in flight), not after the whole body.
  expect(sent).toBeLessThan(120 * 2 ** 20);
  // The whole body held in memory would be 200 MB, and twice that copied; streamed, the peak is the CLI's own.
  const maxRssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  expect(maxRssMb).toBeLessThan(200);
  expect(readdirSync(tmp)).toEqual([]);
});

it('a declared Content-Length over the cap is refused before the body is read', async () => {
  const feed = await recording((res) => {
    res.writeHead(200, { 'content-length': String(10 * 1000 ** 2) });
    res.end(Buffer.alloc(10 * 1000 ** 2, 'x'));
  });
  const r = await runCli(['import', 'stock', `${feed.url}/big.csv`, '--max-download', '1MB'], env, dir);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('larger than the --max-download limit of 1 MB');
});

it('a server that never answers, and one that trickles, end at --download-timeout with exit 2', async () => {
  const silent = await listen(createServer(() => {}));
  const quiet = await runCli(
    ['import', 'stock', `${silent}/stock.csv`, '--download-timeout', '1s'],
    env,
    dir,
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
    env,
    dir,
  );
  timers.forEach(clearInterval);
  expect(slow.code).toBe(2);
  expect(slow.stderr).toContain('it did not finish within the --download-timeout of 1.5 s');
  expect(Date.now() - started).toBeLessThan(10_000);
});

it('--max-download and --download-timeout values are checked (exit 2)', async () => {
  const size = await runCli(
    ['import', 'stock', 'https://feed.example/s.csv', '--max-download', 'lots'],
    env,
    dir,
  );
  expect(size.code).toBe(2);
  expect(size.stderr).toContain('--max-download must be a size such as 50MB');
  const time = await runCli(
    ['import', 'stock', 'https://feed.example/s.csv', '--download-timeout', '0s'],
    env,
    dir,
  );
  expect(time.code).toBe(2);
  expect(time.stderr).toContain('--download-timeout must be a duration such as 30s');
});

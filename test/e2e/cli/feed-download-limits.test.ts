import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { cliSandbox } from '../../helpers/cli-sandbox.js';
import { FEED_CSV, FEED_SECRET, recordingServers, SECRET_HEADERS } from '../../helpers/feed-servers.js';
import { localServers } from '../../helpers/local-servers.js';
import { selfSignedCertificate } from '../../helpers/self-signed-certificate.js';

// Feeds (`mbulk import stock URL`) through the built binary in a child process: a certificate the
// child trusts from start-up (NODE_EXTRA_CA_CERTS), and the child's peak memory under a byte cap.
// The in-process cases are in test/integration/cli/feed-download-limits.test.ts.
const root = resolve(import.meta.dirname, '..', '..', '..');

const t = cliSandbox('mbulk-feed-limits-', { sandbox: 'per-file' });
const listen = localServers();

const recording = recordingServers(listen);

it('an https feed redirected down to plain http:// is refused, even with --follow-redirects: nothing reaches the http server', async () => {
  // A certificate for 127.0.0.1 made now, trusted by the child through NODE_EXTRA_CA_CERTS (read at start-up).
  const tls = selfSignedCertificate(t.dir, '127.0.0.1', 'IP:127.0.0.1');
  const plain = await recording((res) => res.writeHead(200).end(FEED_CSV));
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
        ...SECRET_HEADERS,
      ],
      { cwd: t.dir, env: { ...process.env, ...t.env, NODE_EXTRA_CA_CERTS: tls.certFile } },
      (error, _stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr }),
    ),
  );
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(
    `refusing the redirect of ${secure}/stock.csv from https:// down to plain http://`,
  );
  expect(r.stderr).not.toContain(FEED_SECRET);
  // The https server got the headers (its own origin); the plain one got nothing at all.
  expect(httpsSeen[0]?.['x-api-key']).toBe(FEED_SECRET);
  expect(plain.seen).toEqual([]);
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
  const rssFile = join(t.dir, 'maxrss');
  const preload = join(t.dir, 'maxrss.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const tmp = join(t.dir, 'tmp');
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
      { cwd: t.dir, env: { ...process.env, ...t.env, TMPDIR: tmp } },
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

import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';
import { selfSignedCertificate } from '../../helpers/self-signed-certificate.js';

let dir: string;
let servers: Server[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mbulk-conn-'));
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
});

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), ...extra };
}

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)),
  );
}

/** The `mbulk:` lines of stderr: every error must be printed exactly once. */
function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('mbulk:'));
}

it('connection refused names the URL and MERCHANT_API_URL, once, exit 4', async () => {
  const closed = createHttpServer();
  const port = await listen(closed);
  await new Promise((done) => closed.close(done));
  servers = [];
  const url = `http://127.0.0.1:${port}`;
  const r = await runCli(['whoami'], env({ MERCHANT_API_URL: url, MERCHANT_API_TOKEN: 't' }), dir);
  expect(r.code).toBe(4);
  expect(errorLines(r.stderr)).toEqual([
    `mbulk: nothing answers at ${url} (from MERCHANT_API_URL): connection refused; check the URL's port and that the service is running`,
  ]);
});

it('a port fetch would refuse outright (1) is tried like any other, and named with --base-url', async () => {
  // The CLI sends with undici's request API, not fetch: no "bad port" list, so port 1 gets a real
  // connection attempt, refused on loopback.
  const r = await runCli(
    ['whoami', '--base-url', 'http://127.0.0.1:1'],
    env({ MERCHANT_API_TOKEN: 't' }),
    dir,
  );
  expect(r.code).toBe(4);
  expect(errorLines(r.stderr)).toEqual([
    "mbulk: nothing answers at http://127.0.0.1:1 (from --base-url): connection refused; check the URL's port and that the service is running",
  ]);
});

it('an unknown host says to check the spelling and DNS', async () => {
  const r = await runCli(
    ['whoami'],
    env({ MERCHANT_API_URL: 'https://mbulk-test-host.invalid', MERCHANT_API_TOKEN: 't' }),
    dir,
  );
  expect(r.code).toBe(4);
  const lines = errorLines(r.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /cannot find the host mbulk-test-host\.invalid of https:\/\/mbulk-test-host\.invalid \(from MERCHANT_API_URL\)/,
  );
});

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

it('a rejected token (401) names --token-file or MERCHANT_API_TOKEN', async () => {
  sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  writeFileSync(join(dir, 'tok.txt'), 'wrong-token\n');
  const fromFile = await runCli(
    ['whoami', '--token-file', 'tok.txt'],
    env({ MERCHANT_API_URL: sandbox.url }),
    dir,
  );
  expect(fromFile.code).toBe(4);
  // The service's request id is named, for its support.
  const lines = errorLines(fromFile.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^mbulk: the API token from --token-file tok\.txt was rejected by \S+ \(401; request req_[0-9a-f]+\): check that it is current and issued for this service, or set MERCHANT_API_URL to the service the token belongs to$/,
  );
  expect(lines[0]).toContain(sandbox.url);
  const fromEnv = await runCli(
    ['whoami'],
    env({ MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: 'nope' }),
    dir,
  );
  expect(errorLines(fromEnv.stderr)).toHaveLength(1);
  expect(fromEnv.stderr).toContain('the API token from MERCHANT_API_TOKEN was rejected');
  // The token itself is never shown.
  expect(fromEnv.stderr).not.toContain('nope');
});

it('a token without permission (403) says to check its permissions', async () => {
  const forbidden = createHttpServer((_req, res) => {
    res.writeHead(403, { 'content-type': 'application/json', 'x-request-id': 'req_from_header_7' });
    res.end(
      JSON.stringify({ error: { type: 'permission_error', code: 'forbidden', message: 'not allowed' } }),
    );
  });
  const url = `http://127.0.0.1:${await listen(forbidden)}`;
  const r = await runCli(['whoami'], env({ MERCHANT_API_URL: url, MERCHANT_API_TOKEN: 't' }), dir);
  expect(r.code).toBe(4);
  expect(errorLines(r.stderr)).toEqual([
    `mbulk: the API token from MERCHANT_API_TOKEN is not allowed to do this at ${url} (403; request req_from_header_7): check the token's permissions for this store`,
  ]);
});

it('a certificate that does not verify is reported once and never retried', async () => {
  // A self-signed certificate made now (openssl): the client does not trust it.
  const { key, cert } = selfSignedCertificate(dir, 'mbulk-test.example');
  let handshakes = 0;
  const tls = createHttpsServer({ key, cert }, (_req, res) => res.end('{}'));
  tls.on('connection', () => handshakes++);
  const url = `https://127.0.0.1:${await listen(tls)}`;
  const started = Date.now();
  const r = await runCli(['whoami'], env({ MERCHANT_API_URL: url, MERCHANT_API_TOKEN: 't' }), dir);
  expect(r.code).toBe(4);
  const lines = errorLines(r.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(
    `cannot connect securely to ${url} (from MERCHANT_API_URL): its certificate was rejected`,
  );
  expect(lines[0]).toContain('NODE_EXTRA_CA_CERTS');
  // One connection, no backoff: the old client tried 7 times over ~20 s.
  expect(handshakes).toBe(1);
  expect(Date.now() - started).toBeLessThan(5000);
});

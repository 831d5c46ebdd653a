import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

// `--header-env NAME`: a feed header held by an environment variable, off the command line
// (`mbulk fleet run` passes each store's header_env this way).
const SECRET = 'Bearer env-secret-51c2';
let sandbox: RunningSandbox;
let server: Server;
let feed: string;
const seen: IncomingHttpHeaders[] = [];
const dir = mkdtempSync(join(tmpdir(), 'mbulk-header-env-'));

beforeAll(async () => {
  sandbox = await startSandbox({ seed: resolve('samples/store.json') });
  server = createServer((req, res) => {
    seen.push(req.headers);
    if (req.headers['authorization'] !== SECRET) return void res.writeHead(401).end();
    res.writeHead(200, { 'content-type': 'text/csv' }).end('sku,quantity\nKBT,71\n');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  feed = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stock.csv`;
});
afterAll(async () => {
  await sandbox.close();
  await new Promise((done) => server.close(done));
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    MERCHANT_API_URL: sandbox.url,
    MERCHANT_API_TOKEN: sandbox.token,
    ...extra,
  };
}

it('sends the header the variable holds', async () => {
  const r = await runCli(
    ['import', 'stock', feed, '--header-env', 'FEED_AUTH', '--json'],
    env({ FEED_AUTH: `Authorization: ${SECRET}` }),
    dir,
  );
  expect(r.code, r.stderr).toBe(0);
  expect(seen.at(-1)?.['authorization']).toBe(SECRET);
  expect(r.json()).toMatchObject({ ok: true, counts: { change: 1 } });
  expect(r.stdout + r.stderr).not.toContain('env-secret');
});

it('an unset or empty variable is a usage error naming it, and nothing is downloaded', async () => {
  const before = seen.length;
  for (const value of [undefined, ' ']) {
    const r = await runCli(
      ['import', 'stock', feed, '--header-env', 'FEED_AUTH'],
      env({ FEED_AUTH: value }),
      dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'mbulk: --header-env FEED_AUTH: that environment variable is not set or empty',
    );
  }
  expect(seen.length).toBe(before);
});

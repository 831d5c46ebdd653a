import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import type { StoreSnapshot } from '../../../src/schema/snapshot.js';
import { runCli } from '../../helpers/run-cli.js';

const SAMPLE = resolve('samples/store.json');

/** How the proxy alters one request: another path, or another token. */
type Tamper = (req: { method: string; path: string; body: string }) => { path?: string; token?: string };

/** By default, the token is revoked for writes: reads pass, every write gets 401 invalid_token. */
const revokeWrites: Tamper = ({ method }) => (method === 'GET' ? {} : { token: 'revoked' });

/** A proxy in front of the sandbox that tampers with some requests (the sandbox answers them). */
function tamperingProxy(target: string, tamper: () => Tamper): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const change = tamper()({ method: req.method ?? 'GET', path: req.url ?? '/', body: body.toString() });
      const headers = { ...req.headers, host: upstream.host };
      if (change.token !== undefined) headers['authorization'] = `Bearer ${change.token}`;
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: change.path ?? req.url,
          method: req.method,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () =>
      done({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

let sandbox: RunningSandbox;
let proxy: Server;
let dir: string;
let env: NodeJS.ProcessEnv;
let tamper: Tamper;
beforeEach(async () => {
  sandbox = await startSandbox({ seed: SAMPLE });
  tamper = revokeWrites;
  const p = await tamperingProxy(sandbox.url, () => tamper);
  proxy = p.server;
  dir = mkdtempSync(join(tmpdir(), 'mbulk-unreachable-'));
  env = { MERCHANT_API_URL: p.url, MERCHANT_API_TOKEN: sandbox.token };
});
afterEach(async () => {
  await new Promise((done) => proxy.close(done));
  await sandbox.close();
});

const writesApplied = () => sandbox.requestLog().filter((e) => e.method !== 'GET' && e.outcome === 'applied');

describe('an apply stopped because the API rejected the token exits 4, not 1', () => {
  it('import stock --apply, then mbulk apply RUN', async () => {
    const snapshot = JSON.parse(readFileSync(SAMPLE, 'utf8')) as StoreSnapshot;
    const item = snapshot.products
      .filter((p) => p.inventory_enabled)
      .flatMap((p) => p.variants)
      .find((v) => v.inventory?.sku)?.inventory;
    expect(item?.sku).toBeTruthy();
    const file = join(dir, 'stock.csv');
    writeFileSync(file, `sku,quantity\n${item?.sku},${(item?.quantity ?? 0) + 7}\n`);

    const r = await runCli(['import', 'stock', file, '--apply', '--yes', '--json'], env, dir);
    expect(r.code, r.stderr).toBe(4);
    const doc = r.json<{ ok: boolean; status: string; abortedBy: { exitCode: number }; runDir: string }>();
    expect(doc).toMatchObject({ ok: false, status: 'aborted', abortedBy: { exitCode: 4 } });
    // One line naming where the token came from and what to check (issue 14).
    expect(r.stderr).toMatch(
      /stopped: the API token from MERCHANT_API_TOKEN was rejected by http:\/\/127\.0\.0\.1:\d+ \(401; request req_\w+\)/,
    );
    // The results are still written, and nothing reached the store.
    expect(existsSync(join(doc.runDir, 'results.csv'))).toBe(true);
    expect(writesApplied()).toEqual([]);

    const planned = await runCli(['import', 'stock', file, '--json'], env, dir);
    const { runId } = planned.json<{ runId: string }>();
    const applied = await runCli(['apply', runId, '--yes', '--json'], env, dir);
    expect(applied.code, applied.stderr).toBe(4);
    expect(applied.json()).toMatchObject({ ok: false, abortedBy: { exitCode: 4 } });
    expect(writesApplied()).toEqual([]);
  });

  it('import products --apply', async () => {
    const r = await runCli(
      ['import', 'products', resolve('samples/catalog.csv'), '--apply', '--yes', '--json'],
      env,
      dir,
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.json()).toMatchObject({ ok: false, status: 'aborted', abortedBy: { exitCode: 4 } });
    expect(writesApplied()).toEqual([]);
  });

  it('import customers --apply', async () => {
    const r = await runCli(
      ['import', 'customers', resolve('samples/customers.csv'), '--apply', '--yes', '--json'],
      env,
      dir,
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.json()).toMatchObject({ ok: false, abortedBy: { exitCode: 4 } });
    expect(writesApplied()).toEqual([]);
  });
});

describe('import products --apply exits 1 when an operation without rows fails', () => {
  it('a --missing hide that fails is not an exit 0', async () => {
    // Hides of products absent from the sheet go to a product that is gone: 404, a plain failure.
    tamper = ({ method, path, body }) =>
      method === 'PATCH' && body.includes('"HIDDEN"') ? { path: `${path}_gone` } : {};
    const r = await runCli(
      [
        'import',
        'products',
        resolve('samples/catalog.csv'),
        '--options',
        resolve('samples/options.csv'),
        '--missing',
        'hide',
        '--allow-deletes',
        '--apply',
        '--yes',
        '--json',
      ],
      env,
      dir,
    );
    const doc = r.json<{
      ok: boolean;
      status: string;
      failed: number;
      hidden: number;
      failedRows: unknown[];
    }>();
    expect(doc).toMatchObject({ ok: false, status: 'completed', hidden: 0 });
    expect(doc.failed).toBeGreaterThan(0);
    expect(doc.failedRows).toEqual([]);
    expect(r.code, r.stderr).toBe(1);
  });
});

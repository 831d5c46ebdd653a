import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { captureStream as capture } from '../../helpers/run-cli.js';

const SECRET = 'sbx_SECRET_4f9a2c71d0e8';

async function run(argv: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const stdout = capture();
  const stderr = capture();
  const code = await main(argv, { env, cwd, stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

let sandbox: RunningSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    token: SECRET,
    generate: { products: 1, customers: 1, orders: 0, currency: 'JPY' },
  });
  dir = await mkdtemp(join(tmpdir(), 'mbulk-whoami-'));
});
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

describe('mbulk whoami', () => {
  it('shows the store, its currency decimals, timezone and the target', async () => {
    const env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: SECRET };
    const r = await run(['whoami'], env, dir);
    expect(r.code).toBe(0);
    const me = sandbox.store.getMe();
    expect(r.stdout).toContain(`${me.name} (${me.id})`);
    expect(r.stdout).toContain('JPY (0 decimals)');
    expect(r.stdout).toContain(me.timezone);
    expect(r.stdout).toContain(sandbox.url);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('--json prints one document with the same facts', async () => {
    const env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: SECRET };
    const r = await run(['whoami', '--json'], env, dir);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      ok: true,
      currency: 'JPY',
      decimals: 0,
      store: { id: sandbox.store.getMe().id },
      target: { embedded: false, url: sandbox.url },
    });
  });

  it('a wrong token exits 4 naming the request id, never the token', async () => {
    const wrong = 'sbx_WRONG_token_991122';
    const r = await run(
      ['whoami', '--verbose'],
      { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: wrong },
      dir,
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/request req_[a-z0-9]+/);
    expect(r.stderr).toContain('authentication_error');
    expect(r.stdout + r.stderr).not.toContain(wrong);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    const j = await run(
      ['whoami', '--json'],
      { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: wrong },
      dir,
    );
    expect(j.code).toBe(4);
    const doc = JSON.parse(j.stdout) as { ok: boolean; error: { requestId?: string; message: string } };
    expect(doc.ok).toBe(false);
    expect(doc.error.requestId).toMatch(/^req_/);
    expect(j.stdout + j.stderr).not.toContain(wrong);
  });

  it('--verbose logs every request without the token', async () => {
    const env = { MERCHANT_API_URL: sandbox.url, MERCHANT_API_TOKEN: SECRET };
    const r = await run(['whoami', '--verbose'], env, dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/GET \/api\/v2\/me/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('reads the token from --token-file (trimmed)', async () => {
    const file = join(dir, 'token.txt');
    await writeFile(file, `  ${SECRET}\n`);
    const r = await run(['whoami', '--base-url', sandbox.url, '--token-file', 'token.txt'], {}, dir);
    expect(r.code).toBe(0);
  });

  it('an unreachable API exits 4, quickly', async () => {
    // A port that was free a moment ago: connection refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const started = performance.now();
    const url = `http://127.0.0.1:${port}`;
    const r = await run(['whoami'], { MERCHANT_API_URL: url, MERCHANT_API_TOKEN: SECRET }, dir);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`nothing answers at ${url} (from MERCHANT_API_URL)`);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('refuses plain http to a non-loopback host (exit 2) unless --insecure-http', async () => {
    const env = { MERCHANT_API_URL: 'http://shop.example.invalid', MERCHANT_API_TOKEN: SECRET };
    const r = await run(['whoami'], env, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('http://');
  });

  it('with no base URL, uses the embedded sandbox and says so first', async () => {
    const env = { XDG_DATA_HOME: join(dir, 'data') };
    const r = await run(['whoami'], env, dir);
    expect(r.code).toBe(0);
    // Always the same store, named by its absolute path, whatever the working directory.
    const state = join(dir, 'data', 'mbulk', 'sandbox.json');
    expect(r.stdout.split('\n')[0]).toBe(`Target: local sandbox (${state})`);
    expect(existsSync(state)).toBe(true);
    mkdirSync(join(dir, 'sub'));
    const elsewhere = await run(['whoami'], env, join(dir, 'sub'));
    expect(elsewhere.stdout.split('\n')[0]).toBe(`Target: local sandbox (${state})`);
    expect(existsSync(join(dir, 'sub', '.mbulk'))).toBe(false);
    const other = await run(['whoami', '--json', '--sandbox-data', 'elsewhere/state.json'], {}, dir);
    expect(other.code).toBe(0);
    expect(JSON.parse(other.stdout)).toMatchObject({ target: { embedded: true } });
    expect(existsSync(join(dir, 'elsewhere', 'state.json'))).toBe(true);
  });
});

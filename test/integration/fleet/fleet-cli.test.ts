import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// `mbulk fleet run` refusing before anything runs: no store is started, no fleet run is written,
// and an unattended job's owner still hears of it through --notify-url.
const dir = mkdtempSync(join(tmpdir(), 'mbulk-fleet-cli-'));
const env = { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), KL_TOKEN: 'kl-secret-token' };
const posted: Record<string, unknown>[] = [];
let asked = 0;
let api: Server;
let hook: Server;
let hookUrl: string;
let apiUrl: string;

function listen(server: Server): Promise<string> {
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  api = createServer((_req, res) => {
    asked += 1;
    res.writeHead(500).end();
  });
  apiUrl = await listen(api);
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      posted.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(200).end();
    });
  });
  hookUrl = await listen(hook);
});
afterAll(async () => {
  await Promise.all([api, hook].map((s) => new Promise((done) => s.close(done))));
  rmSync(dir, { recursive: true, force: true });
});

function fleetFile(name: string, body: string): string {
  writeFileSync(join(dir, name), body);
  return name;
}

it('a file with problems: every one named, exit 2, nothing run, one notification', async () => {
  const file = fleetFile(
    'bad.yaml',
    `job: import stock
options: { max-chnges: 10% }
stores:
  - name: kl
    base_url: ${apiUrl}
    token_env: KL_TOKEN
  - name: kl
    base_url: ${apiUrl}
    token_env: KL_TOKEN
    feed: kl.csv
`,
  );
  const r = await runCli(['fleet', 'run', file, '--json', '--notify-url', hookUrl], env, dir);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(
    [
      'mbulk: 3 problems in bad.yaml; nothing was run:',
      '  bad.yaml:2: options.max-chnges: is not an option of mbulk import stock (mbulk import stock --help lists them)',
      '  bad.yaml:4: stores[0] (kl): feed: is missing',
      '  bad.yaml:7: stores[1] (kl): name: is also the name of stores[0]',
    ].join('\n'),
  );
  expect(r.json()).toMatchObject({ ok: false, error: { exitCode: 2 } });
  expect(posted).toHaveLength(1);
  expect(posted[0]).toMatchObject({ command: 'mbulk fleet run', exitCode: 2, ok: false });
  expect(String(posted[0]?.['text'])).toMatch(
    /^mbulk fleet run: failed \(exit 2\) · 3 problems in bad\.yaml/,
  );
  expect(existsSync(join(dir, '.mbulk'))).toBe(false);
  expect(asked).toBe(0);
});

it('--apply without --yes and without a terminal is refused before any store starts (exit 3)', async () => {
  writeFileSync(join(dir, 'kl.csv'), 'sku,quantity\nKBT,1\n');
  const file = fleetFile(
    'good.yaml',
    `job: import stock\nstores:\n  - { name: kl, base_url: "${apiUrl}", token_env: KL_TOKEN, feed: kl.csv }\n`,
  );
  const r = await runCli(['fleet', 'run', file, '--apply'], env, dir);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain('mbulk: nothing was written: add --yes to apply without a confirmation prompt');
  const bad = await runCli(['fleet', 'run', file, '--parallel', '0'], env, dir);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('mbulk: --parallel must be a whole number >= 1');
  // A global option meant for each store is not silently dropped: it belongs in the file.
  const rps = await runCli(['fleet', 'run', file, '--rps', '5'], env, dir);
  expect(rps.code).toBe(2);
  expect(rps.stderr).toContain(
    "mbulk: --rps is not an option of mbulk fleet run: give it in the fleet file's options: (every store) or a store's options: (rps: …)",
  );
  const url = await runCli(['fleet', 'run', file, `--base-url=${apiUrl}`], env, dir);
  expect(url.code).toBe(2);
  expect(url.stderr).toContain(
    "each store's target is in the fleet file (base_url, token_env or token_file)",
  );
  expect(existsSync(join(dir, '.mbulk', 'fleet', 'stores'))).toBe(false);
  expect(asked).toBe(0);
});

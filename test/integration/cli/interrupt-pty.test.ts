import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

// Drives the built binary (run `npm run build` first) in a pseudo-terminal made by util-linux
// `script`, and types Ctrl-C into it midway through an apply, as a user would.
const BIN = resolve('bin/mbulk.js');
const SAMPLE = resolve('samples/store.json');
const PRODUCTS = 30;

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  // Slow enough (about 150 ms a request, 2 in flight) that the apply is still going when Ctrl-C comes.
  sandbox = await startSandbox({ seed: SAMPLE, latencyMs: 150 });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-pty-'));
  env = {
    PATH: process.env['PATH'],
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    TERM: 'xterm',
    MERCHANT_API_URL: sandbox.url,
    MERCHANT_API_TOKEN: sandbox.token,
  };
  const rows = ['reference_id,name,price'];
  for (let i = 1; i <= PRODUCTS; i++) rows.push(`PTY-${String(i).padStart(3, '0')},Pty product ${i},${i}.50`);
  writeFileSync(join(dir, 'new.csv'), `${rows.join('\n')}\n`);
});
afterEach(async () => {
  await sandbox.close();
});

function productWrites(): number {
  return sandbox
    .requestLog()
    .filter((e) => e.method === 'POST' && e.path === '/api/v2/products' && e.outcome === 'applied').length;
}

/** `mbulk ARGS` in a pseudo-terminal; Ctrl-C is typed once `interruptWhen` holds. */
function inTerminal(args: string, interruptWhen: () => boolean): Promise<{ code: number; text: string }> {
  const child = spawn('script', ['-qfec', `node ${BIN} ${args}`, '/dev/null'], { cwd: dir, env });
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  const timer = setInterval(() => {
    if (interruptWhen()) {
      clearInterval(timer);
      child.stdin.write('\x03');
    }
  }, 20);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearInterval(timer);
      done({ code: code ?? -1, text });
    }),
  );
}

/** `mbulk ARGS` without a terminal (asynchronously: the sandbox answers from this process). */
function mbulk(args: string[]): Promise<{ code: number; text: string }> {
  const child = spawn('node', [BIN, ...args], { cwd: dir, env });
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code: code ?? -1, text })));
}

it('Ctrl-C in a terminal stops the apply, exits 130 with the resume line; the resume writes each product once', async () => {
  const interrupted = await inTerminal(
    'import products new.csv --apply --yes --concurrency 2',
    () => productWrites() >= 5,
  );
  expect(interrupted.text).not.toContain('✖');
  expect(interrupted.code).toBe(130);
  const line = /interrupted after (\d+) of (\d+); continue with: mbulk runs resume (\S+)/.exec(
    interrupted.text,
  );
  expect(line, interrupted.text).not.toBeNull();
  const [, done, total, runId] = line as RegExpExecArray;
  expect(Number(total)).toBe(PRODUCTS);
  // In-flight writes finished and were journaled: what is done is exactly what the store got.
  const writtenBefore = productWrites();
  expect(Number(done)).toBe(writtenBefore);
  expect(writtenBefore).toBeGreaterThanOrEqual(5);
  expect(writtenBefore).toBeLessThan(PRODUCTS);

  const show = await mbulk(['runs', 'show', runId as string]);
  expect(show.code).toBe(0);
  expect(show.text).toContain(`Run ${runId} · products · interrupted`);
  expect(show.text).toContain(`done ${done} of ${PRODUCTS}`);
  expect(show.text).toContain(`Continue with: mbulk runs resume ${runId}`);
  expect(show.text).toContain(`Directory: ${join(dir, '.mbulk', 'runs', runId as string)}`);

  const resumed = await mbulk(['runs', 'resume', runId as string, '--yes']);
  expect(resumed.code, resumed.text).toBe(0);
  expect(resumed.text).toMatch(/Applied: \d+ created/);
  expect(resumed.text).toContain('Results: ');
  // Each product was written once: 30 creates in all, and 30 products in the store, one per reference.
  expect(productWrites()).toBe(PRODUCTS);
  const refs = sandbox.store
    .toSnapshot()
    .products.map((p) => p.reference_id)
    .filter((r): r is string => typeof r === 'string' && r.startsWith('PTY-'));
  expect(refs.length).toBe(PRODUCTS);
  expect(new Set(refs).size).toBe(PRODUCTS);
  expect((await mbulk(['runs', 'show', runId as string])).text).toContain(`done ${PRODUCTS} of ${PRODUCTS}`);
}, 60_000);

it('SIGTERM without a terminal does the same: exit 130 and the resume line', async () => {
  const child = spawn(
    'node',
    [BIN, 'import', 'products', 'new.csv', '--apply', '--yes', '--concurrency', '2'],
    {
      cwd: dir,
      env,
    },
  );
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  const timer = setInterval(() => {
    if (productWrites() >= 3) {
      clearInterval(timer);
      child.kill('SIGTERM');
    }
  }, 20);
  const code = await new Promise<number>((done) => child.on('close', (c) => done(c ?? -1)));
  clearInterval(timer);
  expect(code).toBe(130);
  expect(text).toMatch(/interrupted after \d+ of 30; continue with: mbulk runs resume \S+/);
}, 60_000);

it('a second Ctrl-C quits at once; the journal holds and the resume still writes each product once', async () => {
  const child = spawn(
    'script',
    ['-qfec', `node ${BIN} import products new.csv --apply --yes --concurrency 2`, '/dev/null'],
    {
      cwd: dir,
      env,
    },
  );
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  const timer = setInterval(() => {
    if (productWrites() >= 4) {
      clearInterval(timer);
      child.stdin.write('\x03');
      setTimeout(() => child.stdin.write('\x03'), 60);
    }
  }, 20);
  const code = await new Promise<number>((done) => child.on('close', (c) => done(c ?? -1)));
  clearInterval(timer);
  expect(code).toBe(130);
  expect(text, text).toContain('quitting at once');
  const runId = /runs\/(\d{8}-\d{6}-products-[0-9a-f]{4})/.exec(text)?.[1] ?? (await latestRun());
  const resumed = await mbulk(['runs', 'resume', runId, '--yes']);
  expect(resumed.code, resumed.text).toBe(0);
  expect(productWrites()).toBe(PRODUCTS);
}, 60_000);

async function latestRun(): Promise<string> {
  const list = await mbulk(['runs', 'list', '--json']);
  const runs = (JSON.parse(list.text.slice(list.text.indexOf('{'))) as { runs: { id: string }[] }).runs;
  return runs.at(-1)?.id ?? '';
}

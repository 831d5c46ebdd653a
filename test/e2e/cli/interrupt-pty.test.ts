import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
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

interface TerminalRun {
  code: number;
  text: string;
  /** What the terminal showed from the Ctrl-C on. */
  after: string;
  /** Milliseconds from the Ctrl-C to the first "stopping" on screen (undefined: never shown). */
  stoppingMs: number | undefined;
}

/**
 * `mbulk ARGS` in a pseudo-terminal; Ctrl-C (or `keys`) is typed once `interruptWhen` holds (given
 * the screen so far).
 */
function inTerminal(
  args: string,
  interruptWhen: (text: string) => boolean,
  keys = '\x03',
): Promise<TerminalRun> {
  const child = spawn('script', ['-qfec', `stty cols 120 rows 40; node ${BIN} ${args}`, '/dev/null'], {
    cwd: dir,
    env,
  });
  let text = '';
  let sentAt: number | undefined;
  let sentIndex = 0;
  let stoppingMs: number | undefined;
  const seen = (d: Buffer): void => {
    text += d.toString();
    if (sentAt !== undefined && stoppingMs === undefined && text.slice(sentIndex).includes('stopping'))
      stoppingMs = Date.now() - sentAt;
  };
  child.stdout.on('data', seen);
  child.stderr.on('data', seen);
  const timer = setInterval(() => {
    if (interruptWhen(text)) {
      clearInterval(timer);
      sentAt = Date.now();
      sentIndex = text.length;
      child.stdin.write(keys);
    }
  }, 20);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearInterval(timer);
      done({ code: code ?? -1, text, after: text.slice(sentIndex), stoppingMs });
    }),
  );
}

/** What every interrupted run shows: "stopping" at once, then ⚠ and the headline, never a success. */
function expectInterrupted(run: TerminalRun, total: number): { done: number; runId: string } {
  expect(run.code, run.text).toBe(130);
  expect(run.stoppingMs, run.text).toBeDefined();
  expect(run.stoppingMs).toBeLessThan(1000);
  expect(run.after).toContain('stopping: letting ');
  expect(run.after).toContain('(Ctrl-C again to quit now)');
  expect(run.after).not.toContain('✔');
  expect(run.after).not.toContain('✖');
  expect(run.after).not.toMatch(/Applied:/);
  expect(run.after).toMatch(/⚠.* interrupted/);
  const line = /Interrupted: (\d+) of (\d+) written · continue with: mbulk runs resume (\S+)/.exec(run.after);
  expect(line, run.text).not.toBeNull();
  const [, done, all, runId] = line as RegExpExecArray;
  expect(Number(all)).toBe(total);
  return { done: Number(done), runId: runId as string };
}

/** `mbulk ARGS` without a terminal (asynchronously: the sandbox answers from this process). */
function mbulk(args: string[]): Promise<{ code: number; text: string }> {
  const child = spawn('node', [BIN, ...args], { cwd: dir, env });
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code: code ?? -1, text })));
}

it('Ctrl-C in a terminal stops the apply, then a resume, each saying so at once and ending Interrupted (exit 130); a last resume writes each product once', async () => {
  const interrupted = await inTerminal(
    'import products new.csv --apply --yes --concurrency 2',
    () => productWrites() >= 5,
  );
  const { done, runId } = expectInterrupted(interrupted, PRODUCTS);
  // In-flight writes finished and were journaled: what is done is exactly what the store got.
  const writtenBefore = productWrites();
  expect(done).toBe(writtenBefore);
  expect(writtenBefore).toBeGreaterThanOrEqual(5);
  expect(writtenBefore).toBeLessThan(PRODUCTS);

  const show = await mbulk(['runs', 'show', runId]);
  expect(show.code).toBe(0);
  expect(show.text).toContain(`Run ${runId} · products · interrupted`);
  expect(show.text).toContain(`done ${done} of ${PRODUCTS}`);
  expect(show.text).toContain(`Continue with: mbulk runs resume ${runId}`);
  expect(show.text).toContain(`Directory: ${join(dir, '.mbulk', 'runs', runId)}`);

  const resumedOnce = await inTerminal(
    `runs resume ${runId} --yes --concurrency 2`,
    () => productWrites() >= writtenBefore + 3,
  );
  const again = expectInterrupted(resumedOnce, PRODUCTS);
  expect(again.runId).toBe(runId);
  expect(again.done).toBe(productWrites());
  expect(again.done).toBeLessThan(PRODUCTS);

  const resumed = await mbulk(['runs', 'resume', runId, '--yes']);
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
  expect((await mbulk(['runs', 'show', runId])).text).toContain(`done ${PRODUCTS} of ${PRODUCTS}`);
}, 60_000);

it('Ctrl-C at the confirmation prompt of an import names the command that continues its run (mbulk apply RUN with the flags it needs), and that command writes it', async () => {
  const atPrompt = await inTerminal(
    'import products new.csv --apply --allow-price-jumps --runs-dir my-runs',
    (text) => text.includes('[y/N]'),
  );
  expect(atPrompt.code, atPrompt.text).toBe(130);
  expect(productWrites()).toBe(0);
  expect(atPrompt.after).not.toContain('runs show');
  const said =
    /Interrupted: nothing was written · the run stays as it was; continue with: (mbulk apply (\S+) [^\r\n]*)/.exec(
      atPrompt.after,
    );
  expect(said, atPrompt.text).not.toBeNull();
  const [, command, runId] = said as RegExpExecArray;
  // The flags the import was given that a later apply needs, and where its runs are.
  expect(command?.trim()).toBe(`mbulk apply ${runId} --runs-dir my-runs --allow-price-jumps`);
  const planned = await mbulk(['runs', 'show', runId as string, '--runs-dir', 'my-runs']);
  expect(planned.text).toContain(`Run ${runId as string} · products · planned`);

  // The command as printed, answered yes at its prompt: it writes the plan, each product once.
  const applied = await inTerminal(
    (command as string).trim().replace(/^mbulk /, ''),
    (text) => text.includes('[y/N]'),
    'y\r',
  );
  expect(applied.code, applied.text).toBe(0);
  expect(applied.text).toMatch(/Applied: 30 created/);
  expect(productWrites()).toBe(PRODUCTS);
}, 60_000);

it('Ctrl-C at the prompt of runs rollback --apply names mbulk apply of the rollback run, which restores every product', async () => {
  const imported = await mbulk(['import', 'products', 'new.csv', '--apply', '--yes', '--concurrency', '4']);
  expect(imported.code, imported.text).toBe(0);
  const source = await latestRun();
  expect(productWrites()).toBe(PRODUCTS);

  const atPrompt = await inTerminal(`runs rollback ${source} --delete-created --apply`, (text) =>
    text.includes('[y/N]'),
  );
  expect(atPrompt.code, atPrompt.text).toBe(130);
  const said =
    /Interrupted: nothing was written · the run stays as it was; continue with: (mbulk apply (\S+))\s/.exec(
      atPrompt.after,
    );
  expect(said, atPrompt.text).not.toBeNull();
  const [, command, rollbackId] = said as RegExpExecArray;
  expect(rollbackId).not.toBe(source);
  expect(sandbox.store.toSnapshot().products.filter((p) => p.reference_id?.startsWith('PTY-'))).toHaveLength(
    PRODUCTS,
  );

  const applied = await inTerminal(
    (command as string).replace(/^mbulk /, ''),
    (text) => text.includes('[y/N]'),
    'y\r',
  );
  expect(applied.code, applied.text).toBe(0);
  expect(sandbox.store.toSnapshot().products.filter((p) => p.reference_id?.startsWith('PTY-'))).toHaveLength(
    0,
  );
}, 60_000);

it('Ctrl-C during the drift check of `mbulk apply RUN` stops its reads at once: ⚠, nothing written, exit 130', async () => {
  const proxy = await holdingProxy(sandbox.url);
  try {
    const planned = await mbulk(['import', 'products', 'new.csv', '--base-url', proxy.url]);
    expect(planned.code, planned.text).toBe(0);
    const runId = /To write this plan: mbulk apply (\S+)/.exec(planned.text)?.[1] as string;
    expect(runId).toBeDefined();
    // From now on the store's catalog reads never answer: only an abortable drift check can stop.
    proxy.hold();
    const run = await inTerminal(`apply ${runId} --yes --base-url ${proxy.url}`, (text) =>
      text.includes('Check for drift'),
    );
    expect(proxy.held(), run.text).toBeGreaterThan(0);
    expect(run.code, run.text).toBe(130);
    expect(run.stoppingMs, run.text).toBeLessThan(1000);
    expect(run.after).toContain('stopping (Ctrl-C again to quit now)');
    expect(run.after).toMatch(/⚠.* Check for drift: interrupted/);
    expect(run.after).not.toContain('✔');
    expect(run.after).not.toMatch(/Applied:/);
    // It names the command that continues the run (the same apply), not one that only shows it.
    expect(run.after).toContain(
      `Interrupted: nothing was written · the run stays as it was; continue with: mbulk apply ${runId}`,
    );
    expect(productWrites()).toBe(0);
  } finally {
    await proxy.close();
  }
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
  expect(text).toMatch(/Interrupted: \d+ of 30 written · continue with: mbulk runs resume \S+/);
  expect(text).not.toMatch(/Applied:/);
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
  // The message names the run to resume (the run id, not a placeholder).
  const runId = /quitting at once; .*continue with: mbulk runs resume (\S+)/.exec(text)?.[1];
  expect(runId, text).toBe(await latestRun());
  const resumed = await mbulk(['runs', 'resume', runId as string, '--yes']);
  expect(resumed.code, resumed.text).toBe(0);
  expect(productWrites()).toBe(PRODUCTS);
}, 60_000);

it('after a second signal quits a resume at once, runs show reads how far it got from the journal', async () => {
  /** `mbulk ARGS` without a terminal, sent SIGTERM once `when` holds, and again 60 ms later when `twice`. */
  const stopped = (args: string[], when: () => boolean, twice: boolean): Promise<number> => {
    const child = spawn('node', [BIN, ...args], { cwd: dir, env });
    const timer = setInterval(() => {
      if (!when()) return;
      clearInterval(timer);
      child.kill('SIGTERM');
      if (twice) setTimeout(() => child.kill('SIGTERM'), 60);
    }, 20);
    return new Promise((done) =>
      child.on('close', (c) => {
        clearInterval(timer);
        done(c ?? -1);
      }),
    );
  };
  // A first apply stopped gracefully: run.json's counts record how far it got.
  expect(
    await stopped(
      ['import', 'products', 'new.csv', '--apply', '--yes', '--concurrency', '2'],
      () => productWrites() >= 4,
      false,
    ),
  ).toBe(130);
  const runId = await latestRun();
  const first = productWrites();
  // A resume quit at once by the second signal: run.json still says what the first apply wrote.
  expect(
    await stopped(
      ['runs', 'resume', runId, '--yes', '--concurrency', '2'],
      () => productWrites() >= first + 6,
      true,
    ),
  ).toBe(130);
  const written = productWrites();
  expect(written).toBeGreaterThan(first);
  expect(written).toBeLessThan(PRODUCTS);
  const show = await mbulk(['runs', 'show', runId]);
  const progress = new RegExp(`Progress: done (\\d+) of ${PRODUCTS} · (\\d+) failed`).exec(show.text);
  expect(progress, show.text).not.toBeNull();
  // Done: what the journal saw answered; the writes cut off in flight are of unknown outcome
  // (counted with the failed), so the store holds between the two.
  const [done, unsettled] = [Number(progress?.[1]), Number(progress?.[2])];
  expect(done).toBeGreaterThan(first);
  expect(done).toBeLessThanOrEqual(written);
  expect(written).toBeLessThanOrEqual(done + unsettled);
}, 60_000);

async function latestRun(): Promise<string> {
  const list = await mbulk(['runs', 'list', '--json']);
  const runs = (JSON.parse(list.text.slice(list.text.indexOf('{'))) as { runs: { id: string }[] }).runs;
  return runs.at(-1)?.id ?? '';
}

/** A proxy to `target` that, told to `hold`, leaves every read of the catalog (GET /api/v2/products…) unanswered. */
async function holdingProxy(
  target: string,
): Promise<{ url: string; hold(): void; held(): number; close(): Promise<void> }> {
  const upstream = new URL(target);
  let holding = false;
  let held = 0;
  const server = createServer((req, res) => {
    if (holding && req.method === 'GET' && req.url?.startsWith('/api/v2/products')) {
      held++;
      return;
    }
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hold: () => {
      holding = true;
    },
    held: () => held,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

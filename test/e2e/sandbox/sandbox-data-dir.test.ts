import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// The built binary (`npm run build` first) for the commands that run until interrupted.
const BIN = resolve('bin/mbulk.js');

let dir: string;
let env: NodeJS.ProcessEnv;
let state: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mbulk-data-dir-'));
  env = { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), PATH: process.env['PATH'] };
  state = join(dir, 'data', 'mbulk', 'sandbox.json');
  copyFileSync(resolve('samples/store.json'), join(dir, 'seed.json'));
  copyFileSync(resolve('samples/message-templates.csv'), join(dir, 'templates.csv'));
});

/** Starts `mbulk ARGS` and resolves with its output once `until` appears in it (or it exits). */
function start(args: string[], until: string) {
  const child = spawn('node', [BIN, ...args], { cwd: dir, env });
  let text = '';
  const exited = new Promise<number>((done) => child.on('close', (code) => done(code ?? -1)));
  const ready = new Promise<void>((done) => {
    const onData = (d: Buffer) => {
      text += d.toString();
      if (text.includes(until)) done();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => done());
  });
  return { child, ready, exited, text: () => text };
}

it('every directory uses the one embedded sandbox in the user data directory, named by its absolute path', async () => {
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  const first = await runCli(['whoami'], env, join(dir, 'a'));
  expect(first.stdout.split('\n')[0]).toBe(`Target: local sandbox (${state})`);
  const second = await runCli(['whoami'], env, join(dir, 'b'));
  expect(second.stdout.split('\n')[0]).toBe(`Target: local sandbox (${state})`);
  expect(existsSync(join(dir, 'a', '.mbulk', 'sandbox.json'))).toBe(false);
  // ~/.local/share/mbulk when XDG_DATA_HOME is not set.
  const home = await runCli(['whoami'], { HOME: dir }, join(dir, 'a'));
  expect(home.stdout.split('\n')[0]).toBe(
    `Target: local sandbox (${join(dir, '.local', 'share', 'mbulk', 'sandbox.json')})`,
  );
});

it('sandbox --seed refuses to ignore an existing state; --reset replaces it; the banner lists faults', async () => {
  await runCli(['whoami'], env, dir); // creates the state
  const refused = await runCli(['sandbox', '--port', '0', '--seed', 'seed.json'], env, dir);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(
    `the sandbox already has a state in ${state}, so --seed seed.json would be ignored`,
  );
  expect(refused.stderr).toContain('--reset');

  const served = start(
    ['sandbox', '--port', '0', '--seed', 'seed.json', '--reset', '--latency', '20'],
    'Ctrl+C',
  );
  await served.ready;
  expect(served.text()).toContain(`  state: ${state}`);
  expect(served.text()).toContain('  faults: latency 20 ms ±50%');
  served.child.kill('SIGINT');
  expect(await served.exited).toBe(0);
  expect(existsSync(state)).toBe(true);
}, 30_000);

it('templates status --watch sees a review made by another process', async () => {
  const created = await runCli(['templates', 'create', 'templates.csv', '--apply', '--yes'], env, dir);
  expect(created.code, created.stderr).toBe(0);
  const status = await runCli(['templates', 'status', '--json'], env, dir);
  const names = status
    .json<{ templates: { name: string; status: string }[] }>()
    .templates.filter((t) => t.status === 'PENDING')
    .map((t) => t.name);
  expect(names.length).toBeGreaterThan(0);
  const watch = start(['templates', 'status', '--watch', '--interval', '0.5'], 'pending; checking again');
  await watch.ready;
  expect(watch.text()).toContain('PENDING');
  // Reviews from another terminal: each one its own process and embedded sandbox over the same state.
  for (const name of names) expect((await runCli(['sandbox', 'review', name], env, dir)).code).toBe(0);
  const code = await Promise.race([
    watch.exited,
    new Promise<number>((done) => setTimeout(() => done(-2), 20_000)),
  ]);
  if (code === -2) watch.child.kill('SIGKILL');
  expect(code, watch.text()).toBe(0);
  expect(watch.text()).toContain('APPROVED');
}, 40_000);

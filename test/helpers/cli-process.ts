import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';

// The built binary as its own process, for the e2e tests that run `mbulk` again as a cron job or a
// person would (and kill it midway), against a sandbox with the request log as the witness.
const BIN = resolve('bin/mbulk.js');

/** How a `mbulk` process ended, and everything it printed. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `mbulk ARGS` as a child process; `killWhen` (asked every 5 ms) kills it with SIGKILL. */
export function mbulk(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  killWhen?: () => boolean,
): Promise<Exit> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let timer: NodeJS.Timeout | undefined;
  if (killWhen !== undefined) {
    timer = setInterval(() => {
      if (killWhen()) {
        clearInterval(timer);
        child.kill('SIGKILL');
      }
    }, 5);
  }
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      clearInterval(timer);
      done({ code, signal, stdout, stderr });
    }),
  );
}

/** A `--json` run's result: its stdout parsed. */
export function jsonOf<T = Record<string, unknown>>(exit: Exit): T {
  return JSON.parse(exit.stdout) as T;
}

/** What a `--json` apply prints: its run, and the run it continued (when it did). */
export interface RunResult {
  runId: string;
  continuedRun: string;
}

export interface ProcessSandbox {
  s: RunningSandbox;
  /** The scratch directory: the CLI's working directory and HOME. */
  dir: string;
  /** PATH, HOME and XDG_DATA_HOME in `dir`, locks in `dir/locks`, the sandbox as the target. */
  env: NodeJS.ProcessEnv;
}

/**
 * For a test file that runs `mbulk` processes: returns the set-up a test calls (a sandbox of
 * `options`, a scratch directory whose name starts with `prefix`, the environment), and registers
 * the hook that closes the sandbox and removes the directory after each test. Call at the top level.
 */
export function processSandbox(prefix: string): (options: SandboxOptions) => Promise<ProcessSandbox> {
  let sandbox: RunningSandbox | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return async (options) => {
    const s = await startSandbox(options);
    sandbox = s;
    const d = mkdtempSync(join(tmpdir(), prefix));
    dir = d;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'],
      HOME: d,
      XDG_DATA_HOME: join(d, 'data'),
      MERCHANT_API_URL: s.url,
      MERCHANT_API_TOKEN: s.token,
      MBULK_LOCK_DIR: join(d, 'locks'),
    };
    return { s, dir: d, env };
  };
}

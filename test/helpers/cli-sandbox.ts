import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';

const SAMPLE_STORE = resolve(import.meta.dirname, '../../samples/store.json');

export interface CliSandbox {
  /** The sandbox, seeded with samples/store.json. */
  readonly sandbox: RunningSandbox;
  /** This test's scratch directory: the CLI's working directory and HOME. */
  readonly dir: string;
  /**
   * The CLI's environment: HOME and XDG_DATA_HOME in `dir` (nothing of the user's), the sandbox as
   * the target (MERCHANT_API_URL, MERCHANT_API_TOKEN), and the file's `extraEnv` for `dir`.
   */
  readonly env: NodeJS.ProcessEnv;
}

export interface CliSandboxOptions {
  /** One sandbox per test (the default: each starts from the sample store) or one for the file. */
  sandbox?: 'per-test' | 'per-file';
  /** More variables, from this test's directory (`MBULK_LOCK_DIR: join(dir, 'locks')`). */
  extraEnv?: (dir: string) => NodeJS.ProcessEnv;
}

/**
 * For a test file that runs the CLI against the sandbox: per test, a scratch directory (removed
 * after it) that is HOME, and the environment pointing at a sandbox of the sample store (one per
 * test, or one per file). Call at the top level of the file: it registers the hooks. The returned
 * object's fields are this test's.
 */
export function cliSandbox(prefix: string, options: CliSandboxOptions = {}): CliSandbox {
  let sandbox: RunningSandbox | undefined;
  let dir = '';
  let env: NodeJS.ProcessEnv = {};
  const perFile = options.sandbox === 'per-file';
  const start = async () => {
    sandbox = await startSandbox({ seed: SAMPLE_STORE });
  };
  const stop = async () => {
    await sandbox?.close();
    sandbox = undefined;
  };
  if (perFile) {
    beforeAll(start);
    afterAll(stop);
  }
  beforeEach(async () => {
    if (!perFile) await start();
    const running = sandbox as RunningSandbox;
    dir = mkdtempSync(join(tmpdir(), prefix));
    env = {
      HOME: dir,
      XDG_DATA_HOME: join(dir, 'data'),
      MERCHANT_API_URL: running.url,
      MERCHANT_API_TOKEN: running.token,
      ...options.extraEnv?.(dir),
    };
  });
  afterEach(async () => {
    if (!perFile) await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get sandbox() {
      if (sandbox === undefined) throw new Error('cliSandbox: the sandbox is only there inside a test');
      return sandbox;
    },
    get dir() {
      return dir;
    },
    get env() {
      return env;
    },
  };
}

import { execFile } from 'node:child_process';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// bin/mbulk.js on a Node without module.enableCompileCache (< 22.1) keeps a V8 code cache of the CLI
// bundle in $XDG_CACHE_HOME/mbulk/code-cache/ (bin/code-cache.js). These run the built binary with
// the cache directory in a temporary home.
const root = resolve(import.meta.dirname, '..', '..', '..');
const bin = join(root, 'bin', 'mbulk.js');
const nodeCachesItself =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function mbulk(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      done({ code, stdout, stderr });
    });
  });
}

/** The name the cache must have: the hash the build wrote on the bundle's last line, Node, arch. */
async function expectedName(): Promise<string> {
  const text = await readFile(join(root, 'dist', 'bundle', 'main.cjs'), 'utf8');
  const hash = /\/\/# mbulk-bundle-hash=([0-9a-f]{32})\n$/.exec(text)?.[1];
  expect(hash).toBeDefined();
  return `main-${hash}-${process.version}-${process.arch}.v8cache`;
}

describe.skipIf(nodeCachesItself)('the code cache of the CLI bundle (Node < 22.1)', () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let dir: string;

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'mbulk-code-cache-'));
    env = {
      ...process.env,
      HOME: join(work, 'home'),
      XDG_CACHE_HOME: join(work, 'cache'),
      XDG_DATA_HOME: join(work, 'data'),
      COLUMNS: '100',
      NO_COLOR: '1',
    };
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    delete env['MERCHANT_API_URL'];
    delete env['MERCHANT_API_TOKEN'];
    dir = join(work, 'cache', 'mbulk', 'code-cache');
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('is written by the first run, keyed on the bundle, Node and arch, and used as is by the next', async () => {
    const first = await mbulk(['whoami'], env);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain('Store:');
    const name = await expectedName();
    expect(await readdir(dir)).toEqual([name]);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const made = await stat(join(dir, name));
    expect(made.mode & 0o777).toBe(0o600);
    expect((await readFile(join(dir, name), 'latin1')).split('\n')[0]).toMatch(
      /^mbulk-v8cache 3 [0-9a-f]{64} whoami$/,
    );

    const second = await mbulk(['whoami'], env);
    expect(second).toEqual(first);
    // Accepted, hence not rewritten (a rejected or unreadable one is replaced by a new file).
    const after = await stat(join(dir, name));
    expect([after.ino, after.mtimeMs]).toEqual([made.ino, made.mtimeMs]);
  });

  it('is rewritten for a command it did not cover yet, then covers both', async () => {
    await mbulk(['--help'], env);
    const name = await expectedName();
    expect((await readFile(join(dir, name), 'latin1')).split('\n')[0]).toMatch(/ help$/);
    expect((await mbulk(['whoami'], env)).code).toBe(0);
    expect((await readFile(join(dir, name), 'latin1')).split('\n')[0]).toMatch(/ help,whoami$/);
  });

  it('runs from the cache code it did not hold yet, import()s of Node modules included', async () => {
    const uncached = await mbulk(['runs', 'show', 'no-such-run'], {
      ...env,
      NODE_DISABLE_COMPILE_CACHE: '1',
    });
    expect(uncached.stderr).toContain('no-such-run');
    // A cache of --help, then `runs show` (its code does `await import('node:fs')`).
    expect((await mbulk(['--help'], env)).code).toBe(0);
    expect(await readdir(dir)).toEqual([await expectedName()]);
    expect(await mbulk(['runs', 'show', 'no-such-run'], env)).toEqual(uncached);
  });

  it('lives in ~/.cache/mbulk/code-cache without XDG_CACHE_HOME', async () => {
    delete env['XDG_CACHE_HOME'];
    expect((await mbulk(['--help'], env)).code).toBe(0);
    expect(await readdir(join(work, 'home', '.cache', 'mbulk', 'code-cache'))).toEqual([
      await expectedName(),
    ]);
  });

  it('survives a garbage, truncated, corrupted or rejected cache file, and replaces it', async () => {
    const good = await mbulk(['--help'], env);
    const file = join(dir, await expectedName());
    const valid = await readFile(file);
    const headerEnd = valid.indexOf(0x0a) + 1;
    const payload = valid.subarray(headerEnd);
    const corrupted = Buffer.from(valid);
    const flipped = headerEnd + Math.floor(payload.length / 2);
    corrupted.writeUInt8(corrupted.readUInt8(flipped) ^ 0xff, flipped);
    const badPayload = Buffer.concat([valid.subarray(0, headerEnd), Buffer.alloc(1000, 0x41)]);
    const cases: Record<string, () => Promise<void>> = {
      garbage: () => writeFile(file, 'not a code cache at all'),
      truncated: () => truncate(file, Math.floor(valid.length / 2)),
      // One byte changed: V8's checksum (--verify-snapshot-checksum) rejects it; without it, it would run.
      corrupted: () => writeFile(file, corrupted),
      'not a V8 cache': () => writeFile(file, badPayload),
    };
    for (const [what, spoil] of Object.entries(cases)) {
      await spoil();
      const spoiled = await readFile(file);
      const run = await mbulk(['--help'], env);
      expect(run, what).toEqual(good);
      // Replaced by a whole new cache, which the next run uses as is.
      const replaced = await readFile(file);
      expect(replaced.equals(spoiled), what).toBe(false);
      expect(replaced.subarray(0, replaced.indexOf(0x0a) + 1).toString('latin1'), what).toBe(
        valid.subarray(0, headerEnd).toString('latin1'),
      );
      expect(replaced.length, what).toBeGreaterThan(valid.length * 0.9);
      const made = await stat(file);
      expect(await mbulk(['--help'], env), what).toEqual(good);
      const after = await stat(file);
      expect([after.ino, after.mtimeMs], what).toEqual([made.ino, made.mtimeMs]);
    }
  });

  it('is neither read nor written where it cannot be private, and the command still works', async () => {
    const good = await mbulk(['--help'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(good.code).toBe(0);
    // XDG_CACHE_HOME is a file: no directory can be made.
    await writeFile(join(work, 'cache-file'), '');
    expect(await mbulk(['--help'], { ...env, XDG_CACHE_HOME: join(work, 'cache-file') })).toEqual(good);
    // A directory others may write to: not used (they could plant a cache).
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o777);
    expect(await mbulk(['--help'], env)).toEqual(good);
    expect(await readdir(dir)).toEqual([]);
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE=1, and not written after a failed command', async () => {
    const off = await mbulk(['--help'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('mbulk whoami');
    const failed = await mbulk(['no-such-command'], env);
    expect(failed.code).toBe(2);
    await expect(readdir(join(work, 'cache'))).rejects.toThrow(/ENOENT/);
    // The same commands with the cache on do write it (the checks above can fail).
    expect((await mbulk(['--help'], env)).code).toBe(0);
    expect(await readdir(dir)).toEqual([await expectedName()]);
  });

  it('keeps at most four cache files and drops stale temp files', async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const old = new Date(Date.now() - 3_600_000);
    const others = ['a', 'b', 'c', 'd', 'e'].map((key, i) => `main-${key.repeat(32)}-v20.0.${i}-x64.v8cache`);
    for (const [i, name] of others.entries()) {
      await writeFile(join(dir, name), 'old');
      const time = new Date(old.getTime() + i * 1000);
      await utimes(join(dir, name), time, time);
    }
    await writeFile(join(dir, 'x.v8cache.123.tmp'), 'left by a crash');
    await utimes(join(dir, 'x.v8cache.123.tmp'), old, old);
    expect((await mbulk(['--help'], env)).code).toBe(0);
    // Ours and the three newest others.
    expect((await readdir(dir)).sort()).toEqual([await expectedName(), ...others.slice(2)].sort());
  });
});

import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// V8 accepts a code cache for any script of the same length and runs the code it holds. These plant
// caches made from a same-length script that writes a marker file, where bin/code-cache.js looks for
// the cache of the bundle, and check that the marker never appears. The loader runs on a tiny bundle
// of the build's format (quick), and once on the real CLI bundle through bin/mbulk.js.
const root = resolve(import.meta.dirname, '..', '..', '..');
const loader = join(root, 'bin', 'code-cache.js');
const nodeCachesItself =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const isRoot = process.getuid?.() === 0;
/** An attacker's uid (nobody): only root can make files of another user; others test by mode instead. */
const ATTACKER = 65534;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function node(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) =>
    execFile(process.execPath, args, { cwd: root, env }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    ),
  );
}

/** Loads the bundle FILE through bin/code-cache.js, prints what its main() returns, and saves the cache. */
function load(file: string, cacheHome: string): Promise<Run> {
  const script = `const { loadWithCodeCache } = await import(${JSON.stringify(loader)});
const loaded = loadWithCodeCache(${JSON.stringify(file)}, ['runs', 'list']);
process.stdout.write(String(loaded.exports.main()));
loaded.save();`;
  return node(['--input-type=module', '-e', script], { ...process.env, XDG_CACHE_HOME: cacheHome });
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe.skipIf(nodeCachesItself)('a planted code cache never runs (Node < 22.1)', () => {
  let work: string;
  let marker: string;
  let bundle: string;
  let planted: string;
  let victim: string;

  /** A bundle of the build's format: a function of CommonJS's parameters, then the name hash line. */
  function bundleText(body: string, length?: number): string {
    const text = `(function (exports, require, module) { ${body} })`;
    const padded = length === undefined ? text : `${text}/*${' '.repeat(length - text.length - 4)}*/`;
    return `${padded}\n//# mbulk-bundle-hash=${'ab'.repeat(16)}\n`;
  }

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'mbulk-planted-'));
    marker = join(work, 'PLANTED-CODE-RAN');
    bundle = join(work, 'dist', 'main.cjs');
    mkdirSync(join(work, 'dist'));
    const good = bundleText(`module.exports.main = () => 'bundle' + '${'1'.repeat(200)}';`);
    writeFileSync(bundle, good);
    // The attacker's script: the same length, the same name hash line, other code.
    const evil = bundleText(
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x'); module.exports.main = () => 'bundle';`,
      good.indexOf('\n'),
    );
    expect(evil.length).toBe(good.length);
    // Its genuine cache, made by the loader itself (running it once, so the marker is removed after).
    const maker = join(work, 'maker');
    mkdirSync(join(maker, 'dist'), { recursive: true });
    writeFileSync(join(maker, 'dist', 'main.cjs'), evil);
    expect((await load(join(maker, 'dist', 'main.cjs'), join(maker, 'cache'))).code).toBe(0);
    const made = join(maker, 'cache', 'mbulk', 'code-cache');
    planted = join(made, readdirSync(made)[0]!);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    victim = join(work, 'cache', 'mbulk', 'code-cache');
    mkdirSync(victim, { recursive: true, mode: 0o700 });
    chmodSync(join(work, 'cache'), 0o700);
    chmodSync(join(work, 'cache', 'mbulk'), 0o700);
  });
  afterEach(() => {
    rmSync(work, { recursive: true, force: true });
  });

  /** The planted cache with its first line claiming LINE's hash (the V8 data is the attacker's). */
  function plantedBytes(claimedHash: string): Buffer {
    const bytes = readFileSync(planted);
    const headerEnd = bytes.indexOf(0x0a) + 1;
    const commands = bytes.subarray(0, headerEnd).toString('latin1').split(' ')[3]!;
    return Buffer.concat([
      Buffer.from(`mbulk-v8cache 3 ${claimedHash} ${commands}`, 'latin1'),
      bytes.subarray(headerEnd),
    ]);
  }

  function plant(folder: string, bytes: Buffer): string {
    const file = join(folder, readdirSync(join(planted, '..'))[0]!);
    writeFileSync(file, bytes, { mode: 0o600 });
    return file;
  }

  it('a same-length cache made from another script: not run; the bundle runs and its own cache replaces it', async () => {
    // As written by the loader for the other script: its header names that script's hash.
    plant(victim, readFileSync(planted));
    const r = await load(bundle, join(work, 'cache'));
    expect(r).toMatchObject({ code: 0, stdout: `bundle${'1'.repeat(200)}` });
    expect(existsSync(marker)).toBe(false);
    // Replaced by the bundle's own cache, which names the bundle's hash.
    const [name] = readdirSync(victim);
    expect(readFileSync(join(victim, name!), 'latin1').split(' ')[2]).toBe(sha256(readFileSync(bundle)));
    expect(existsSync(marker)).toBe(false);
  });

  it('control: the same planted code claiming the bundle hash, in a private file of the user, does run (V8 alone would accept it)', async () => {
    // Only someone who can already write the user's own private files can do this; it shows the
    // planted cache above is a working attack that the hash check alone stopped.
    plant(victim, plantedBytes(sha256(readFileSync(bundle))));
    await load(bundle, join(work, 'cache'));
    expect(existsSync(marker)).toBe(true);
  });

  it('a cache claiming the bundle hash in a folder or file another user owns or may write, or behind a symbolic link: not run', async () => {
    const forged = plantedBytes(sha256(readFileSync(bundle)));
    const cases: Record<string, () => void> = {
      'file another user can write': () => chmodSync(plant(victim, forged), 0o622),
      'file readable by others': () => chmodSync(plant(victim, forged), 0o644),
      'file of another user': () => {
        const file = plant(victim, forged);
        if (isRoot) chownSync(file, ATTACKER, ATTACKER);
        else chmodSync(file, 0o666);
      },
      'folder of another user': () => {
        plant(victim, forged);
        if (isRoot) chownSync(victim, ATTACKER, ATTACKER);
        else chmodSync(victim, 0o777);
      },
      'parent folder others may write': () => {
        plant(victim, forged);
        chmodSync(join(work, 'cache', 'mbulk'), 0o777);
      },
      'cache root others may write': () => {
        plant(victim, forged);
        chmodSync(join(work, 'cache'), 0o1777);
      },
      'folder behind a symbolic link': () => {
        const elsewhere = join(work, 'elsewhere');
        mkdirSync(elsewhere, { mode: 0o700 });
        plant(elsewhere, forged);
        rmSync(victim, { recursive: true });
        symlinkSync(elsewhere, victim);
      },
      'file behind a symbolic link': () => {
        const file = plant(join(work, 'dist'), forged);
        symlinkSync(file, join(victim, readdirSync(join(planted, '..'))[0]!));
      },
    };
    for (const [what, arrange] of Object.entries(cases)) {
      rmSync(join(work, 'cache'), { recursive: true, force: true });
      rmSync(join(work, 'elsewhere'), { recursive: true, force: true });
      rmSync(join(work, 'dist', readdirSync(join(planted, '..'))[0]!), { force: true });
      mkdirSync(victim, { recursive: true, mode: 0o700 });
      chmodSync(join(work, 'cache'), 0o700);
      chmodSync(join(work, 'cache', 'mbulk'), 0o700);
      arrange();
      const r = await load(bundle, join(work, 'cache'));
      expect(r.stdout, what).toBe(`bundle${'1'.repeat(200)}`);
      expect(existsSync(marker), what).toBe(false);
    }
  });

  it('a folder swapped back and forth while the loader runs: the attacker code never runs', async () => {
    // The user's folder holds the bundle's own cache; the attacker's (of another user, or writable
    // by others) holds the forged one. A process swaps them by rename as fast as it can.
    expect((await load(bundle, join(work, 'cache'))).code).toBe(0);
    const attacker = join(work, 'cache', 'mbulk', 'attacker');
    mkdirSync(attacker, { mode: 0o700 });
    plant(attacker, plantedBytes(sha256(readFileSync(bundle))));
    if (isRoot) chownSync(attacker, ATTACKER, ATTACKER);
    else chmodSync(attacker, 0o777);
    const swap = join(work, 'cache', 'mbulk', 'swap');
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const { renameSync } = require('node:fs');
const [a, b, t] = ${JSON.stringify([victim, attacker, swap])};
const end = Date.now() + 30000;
while (Date.now() < end) { renameSync(a, t); renameSync(b, a); renameSync(t, b); }`,
      ],
      { stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 10; i++) {
        const r = await load(bundle, join(work, 'cache'));
        expect(r.stdout).toBe(`bundle${'1'.repeat(200)}`);
        expect(existsSync(marker), `run ${i}`).toBe(false);
      }
    } finally {
      swapper.kill('SIGKILL');
    }
  });
});

describe.skipIf(nodeCachesItself)('the CLI with a planted code cache (Node < 22.1)', () => {
  it('mbulk runs list ignores a same-length cache made from another script', async () => {
    const work = mkdtempSync(join(tmpdir(), 'mbulk-planted-cli-'));
    try {
      const marker = join(work, 'PLANTED-CODE-RAN');
      const real = readFileSync(join(root, 'dist', 'bundle', 'main.cjs'), 'latin1');
      const hashLine = real.slice(real.lastIndexOf('\n', real.length - 2) + 1);
      const head = `(function (exports, require, module) { require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x'); module.exports.main = async () => 0; })`;
      const evil = `${head}/*${' '.repeat(real.length - hashLine.length - head.length - 5)}*/\n${hashLine}`;
      expect(evil.length).toBe(real.length);
      // Its cache, made by the loader from a copy at another path (running it once).
      const maker = join(work, 'maker');
      mkdirSync(maker);
      writeFileSync(join(maker, 'main.cjs'), evil, 'latin1');
      const made = await load(join(maker, 'main.cjs'), join(work, 'maker-cache'));
      expect(made.code).toBe(0);
      rmSync(marker);
      const from = join(work, 'maker-cache', 'mbulk', 'code-cache');
      const name = readdirSync(from)[0]!;
      const to = join(work, 'cache', 'mbulk', 'code-cache');
      mkdirSync(to, { recursive: true, mode: 0o700 });
      chmodSync(join(work, 'cache'), 0o700);
      chmodSync(join(work, 'cache', 'mbulk'), 0o700);
      copyFileSync(join(from, name), join(to, name));
      chmodSync(join(to, name), 0o600);

      const env: NodeJS.ProcessEnv = { ...process.env, HOME: work, XDG_CACHE_HOME: join(work, 'cache') };
      delete env['NODE_DISABLE_COMPILE_CACHE'];
      const r = await node(
        [join(root, 'bin', 'mbulk.js'), 'runs', 'list', '--runs-dir', join(work, 'runs')],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

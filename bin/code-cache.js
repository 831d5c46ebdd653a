// Loads the CLI bundle (dist/bundle/main.cjs, one CommonJS file) on a Node without
// `module.enableCompileCache` (Node < 22.1), with a V8 code cache of our own: compiling the bundle's
// ~1.8 MB of JavaScript is a good part of a short command's start-up, and the cache lets V8 skip it.
//
// The cache lives in `$XDG_CACHE_HOME/mbulk/code-cache/` (else `~/.cache/mbulk/code-cache/`), one file
// per bundle, Node version and architecture: `main-<bundle hash>-<node version>-<arch>.v8cache`. V8
// accepts a cache for any source of the same length and runs the code it holds, so the name carries the
// hash the build wrote on the bundle's last line (scripts/bundle-cli.mjs): a cache made for another
// bundle is never found. Anything unexpected (no home, a directory another user could write, an
// unreadable, truncated, corrupt or rejected cache) means a normal compile; `NODE_DISABLE_COMPILE_CACHE=1`
// (Node's own switch) turns it off.
import { Buffer } from 'node:buffer';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/** Cache files kept in the directory (bundles × Node versions); older ones are removed on a write. */
const KEEP = 4;
/**
 * A cache file is this header line then V8's code cache: `mbulk-v8cache 2 <commands>`, the commands
 * whose compiled functions it holds.
 */
const HEADER = /^mbulk-v8cache 2 (\S+)\n/;
/** Commands one cache can list; past that it is no longer rewritten for a new one. */
const MAX_COMMANDS = 40;

/** `$XDG_CACHE_HOME/mbulk/code-cache` (if absolute, as the XDG spec asks) else `~/.cache/mbulk/code-cache`. */
function cacheDir() {
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'mbulk', 'code-cache');
  const home = process.env.HOME || homedir();
  return join(home, '.cache', 'mbulk', 'code-cache');
}

/** Whether DIR is ours and no one else can write into it (then neither can they plant a cache). */
function privateDir(dir) {
  const stat = statSync(dir);
  return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}

/**
 * What a command line runs, as far as which functions it compiles: `help` for --help, else its first
 * two words, before any option or other argument (`whoami`, `export-products`): lowercase words only,
 * so that the list in the cache's first line stays one line.
 */
function commandOf(argv) {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  const end = argv.findIndex((arg) => !/^[a-z][a-z-]{0,30}$/.test(arg));
  const words = (end < 0 ? argv : argv.slice(0, end)).slice(0, 2);
  return words.length > 0 ? words.join('-') : 'other';
}

/** The V8 code cache and the commands it covers, from a cache file; undefined if it is not one. */
function parseCacheFile(bytes) {
  const header = HEADER.exec(bytes.subarray(0, 1024).toString('latin1'));
  if (header === null) return undefined;
  return { data: bytes.subarray(header[0].length), commands: header[1].split(',') };
}

/**
 * Runs the bundle FILE as Node runs a CommonJS module and returns its exports, with `save()`: after
 * a command ARGV completed, writes the code cache if there was none, V8 rejected it, or it did not
 * cover this command yet (the new cache holds the functions of the commands it covered and of this
 * one: V8 writes every function compiled so far); a no-op otherwise.
 */
export function loadWithCodeCache(file, argv) {
  // All ASCII (the build checks): latin1 is the quickest decoding to V8's one-byte string.
  const source = readFileSync(file, 'latin1');
  const hash = /\/\/# mbulk-bundle-hash=([0-9a-f]{32})\n$/.exec(source.slice(-80))?.[1];
  const disabled = process.env.NODE_DISABLE_COMPILE_CACHE !== undefined || hash === undefined;
  let dir;
  let cacheFile;
  let cached;
  if (!disabled) {
    try {
      dir = cacheDir();
      cacheFile = join(dir, `main-${hash}-${process.version}-${process.arch}.v8cache`);
      if (privateDir(dir)) cached = parseCacheFile(readFileSync(cacheFile));
    } catch {
      // No cache yet, or none we may use: compile.
    }
  }
  const cachedData = cached?.data;
  // V8 checks a code cache's format, length, V8 version and flags, but its bytes only with this flag
  // (a corrupt cache would run); it also makes createCachedData() write the checksum. Native and
  // cheap, unlike node:zlib's crc32 (~4 ms to load) or node:crypto (~15 ms).
  setFlagsFromString('--verify-snapshot-checksum');
  // The bundle evaluates to a function of CommonJS's five parameters (scripts/bundle-cli.mjs).
  const script = new Script(source, {
    filename: file,
    cachedData,
    // No importModuleDynamically: on Node 20 a script compiled from a code cache loses it (import()
    // then fails), so the build leaves no import() in the bundle (scripts/bundle-cli.mjs).
  });
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script
    .runInThisContext()
    .call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  module.loaded = true;
  const command = commandOf(argv);
  const save = () => {
    if (disabled || cacheFile === undefined) return;
    const covered = cached !== undefined && !script.cachedDataRejected ? cached.commands : [];
    if (covered.includes(command) || (covered.length >= MAX_COMMANDS && cached !== undefined)) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (!privateDir(dir)) return;
      // A whole file or none: a parallel run reads the old cache, or none, never half of one.
      const temp = `${cacheFile}.${process.pid}.tmp`;
      const data = script.createCachedData();
      const header = `mbulk-v8cache 2 ${[...covered, command].join(',')}\n`;
      writeFileSync(temp, Buffer.concat([Buffer.from(header, 'latin1'), data]), { mode: 0o600 });
      renameSync(temp, cacheFile);
      prune(dir, cacheFile);
    } catch {
      // An unwritable cache only costs the next start a compile.
    }
  };
  return { exports: module.exports, save };
}

/** Keeps the KEEP newest cache files of DIR (KEPT among them) and drops temp files a crash left. */
function prune(dir, kept) {
  const now = Date.now();
  const caches = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    try {
      if (name.endsWith('.tmp')) {
        if (now - statSync(path).mtimeMs > 60_000) unlinkSync(path);
      } else if (name.endsWith('.v8cache') && path !== kept) {
        caches.push({ path, time: statSync(path).mtimeMs });
      }
    } catch {
      // Gone already (another run pruned it).
    }
  }
  caches.sort((a, b) => b.time - a.time);
  for (const { path } of caches.slice(KEEP - 1)) {
    try {
      unlinkSync(path);
    } catch {
      // Gone already.
    }
  }
}

// Loads the CLI bundle (dist/bundle/main.cjs, one CommonJS file) on a Node without
// `module.enableCompileCache` (Node < 22.1), with a V8 code cache of our own: compiling the bundle's
// ~1.8 MB of JavaScript is a good part of a short command's start-up, and the cache lets V8 skip it.
//
// The cache lives in `$XDG_CACHE_HOME/mbulk/code-cache/` (else `~/.cache/mbulk/code-cache/`), one file
// per bundle, Node version and architecture: `main-<bundle hash>-<node version>-<arch>.v8cache`.
//
// V8 runs whatever code a cache holds: it checks the cache's own checksum, V8 version, flags and the
// source's LENGTH, never the source itself, so a cache made from another script of the same length
// runs that script. What the loader trusts, then, and checks before V8 sees a byte:
// - the cache's first line carries the SHA-256 of the exact bundle text it was made from, compared
//   with the SHA-256 of the bundle being run (the name's hash, written by the build, only sorts files);
// - the file is one only this user can have written: the cache root and every folder below it
//   (`mbulk`, `code-cache`) are opened one by one, each through the descriptor of its parent, never
//   through a symbolic link, and each must be owned by this user with no group or other write; the
//   file itself is opened through the folder's descriptor (no symbolic link) and must be a regular
//   file owned by this user with mode 0600. Every check is on an open descriptor (fstat), and the
//   bytes are read through that same descriptor, so no folder swapped in between is ever read.
// Opening a file relative to a folder's descriptor is done through Linux's /proc/self/fd/N (Node has
// no openat); elsewhere the cache is off. Anything unexpected means an ordinary compile;
// `NODE_DISABLE_COMPILE_CACHE=1` (Node's own switch) turns it off.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
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
 * A cache file is this header line then V8's code cache: `mbulk-v8cache 3 <sha256> <commands>`, the
 * SHA-256 of the bundle it was made from and the commands whose compiled functions it holds.
 */
const HEADER = /^mbulk-v8cache 3 ([0-9a-f]{64}) (\S+)\n/;
/** Commands one cache can list; past that it is no longer rewritten for a new one. */
const MAX_COMMANDS = 40;
/** The folders below the cache root. */
const BELOW_ROOT = ['mbulk', 'code-cache'];
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** `$XDG_CACHE_HOME` (if absolute, as the XDG spec asks) else `~/.cache`. */
function cacheRoot() {
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return xdg;
  return join(process.env.HOME || homedir(), '.cache');
}

/** Whether this platform lets us open a file relative to a folder's descriptor (Linux's /proc). */
function canOpenAt() {
  return process.platform === 'linux' && typeof process.getuid === 'function';
}

/** The path that opens NAME inside the folder open as FD (openat through /proc). */
function at(fd, name) {
  return `/proc/self/fd/${fd}/${name}`;
}

/** Whether the folder open as FD is ours and no one else can write into it. */
function privateDir(fd) {
  const stat = fstatSync(fd);
  return stat.isDirectory() && stat.uid === process.getuid() && (stat.mode & 0o022) === 0;
}

/**
 * Opens the code-cache folder from the cache root down, one folder at a time through its parent's
 * descriptor, no symbolic link followed, each checked private (privateDir); with CREATE, makes the
 * missing ones (0700). Returns its descriptor, or undefined (closing whatever it opened).
 */
function openCacheDir(create) {
  const root = cacheRoot();
  if (create) mkdirSync(root, { recursive: true, mode: 0o700 });
  let fd = openSync(root, DIR_FLAGS);
  try {
    if (!privateDir(fd)) throw new Error('not private');
    for (const name of BELOW_ROOT) {
      if (create) {
        try {
          mkdirSync(at(fd, name), { mode: 0o700 });
        } catch (error) {
          if (error.code !== 'EEXIST') throw error;
        }
      }
      const child = openSync(at(fd, name), DIR_FLAGS);
      closeSync(fd);
      fd = child;
      if (!privateDir(fd)) throw new Error('not private');
    }
    return fd;
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/** NAME's bytes in the folder open as DIR, if it is a regular file of ours that only we can read and write. */
function readPrivateFile(dir, name) {
  const fd = openSync(at(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== process.getuid() || (stat.mode & 0o777) !== 0o600) return undefined;
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
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

/** The V8 code cache and the commands it covers, if BYTES are a cache file made from the bundle hashed SHA256. */
function parseCacheFile(bytes, sha256) {
  const header = HEADER.exec(bytes.subarray(0, 1024).toString('latin1'));
  if (header === null || header[1] !== sha256()) return undefined;
  return { data: bytes.subarray(header[0].length), commands: header[2].split(',') };
}

/**
 * Runs the bundle FILE as Node runs a CommonJS module and returns its exports, with `save()`: after
 * a command ARGV completed, writes the code cache if there was none, V8 rejected it, or it did not
 * cover this command yet (the new cache holds the functions of the commands it covered and of this
 * one: V8 writes every function compiled so far); a no-op otherwise.
 */
export function loadWithCodeCache(file, argv) {
  const bytes = readFileSync(file);
  // All ASCII (the build checks): latin1 is the quickest decoding to V8's one-byte string.
  const source = bytes.toString('latin1');
  const name = /\/\/# mbulk-bundle-hash=([0-9a-f]{32})\n$/.exec(source.slice(-80))?.[1];
  const disabled = process.env.NODE_DISABLE_COMPILE_CACHE !== undefined || name === undefined || !canOpenAt();
  const cacheName = `main-${name}-${process.version}-${process.arch}.v8cache`;
  let hash;
  const sha256 = () => (hash ??= createHash('sha256').update(bytes).digest('hex'));
  let cached;
  if (!disabled) {
    let dir;
    try {
      dir = openCacheDir(false);
      if (dir !== undefined) {
        const read = readPrivateFile(dir, cacheName);
        if (read !== undefined) cached = parseCacheFile(read, sha256);
      }
    } catch {
      // No cache yet, or none we may use: compile.
    } finally {
      if (dir !== undefined) closeSync(dir);
    }
  }
  const cachedData = cached?.data;
  // V8 checks a code cache's format, length, V8 version and flags, but its bytes only with this flag
  // (a corrupt cache would run); it also makes createCachedData() write the checksum.
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
    if (disabled) return;
    const covered = cached !== undefined && !script.cachedDataRejected ? cached.commands : [];
    if (covered.includes(command) || (covered.length >= MAX_COMMANDS && cached !== undefined)) return;
    let dir;
    try {
      dir = openCacheDir(true);
      if (dir === undefined) return;
      // A whole file or none: a parallel run reads the old cache, or none, never half of one.
      const temp = `${cacheName}.${process.pid}.tmp`;
      const data = script.createCachedData();
      const header = `mbulk-v8cache 3 ${sha256()} ${[...covered, command].join(',')}\n`;
      writeFileSync(at(dir, temp), Buffer.concat([Buffer.from(header, 'latin1'), data]), {
        mode: 0o600,
        flag: 'wx',
      });
      renameSync(at(dir, temp), at(dir, cacheName));
      prune(dir, cacheName);
    } catch {
      // An unwritable cache only costs the next start a compile.
    } finally {
      if (dir !== undefined) closeSync(dir);
    }
  };
  return { exports: module.exports, save };
}

/** Keeps the KEEP newest cache files in the folder open as DIR (KEPT among them) and drops temp files a crash left. */
function prune(dir, kept) {
  const now = Date.now();
  const caches = [];
  for (const name of readdirSync(at(dir, ''))) {
    const path = at(dir, name);
    try {
      if (name.endsWith('.tmp')) {
        if (now - statSync(path).mtimeMs > 60_000) unlinkSync(path);
      } else if (name.endsWith('.v8cache') && name !== kept) {
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

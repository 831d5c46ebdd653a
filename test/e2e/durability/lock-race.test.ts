import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

// The journal module raced (the built library: run `npm run build` first). To see the race fail,
// MBULK_LOCK_RACE_JOURNAL=test/fixtures/lock-race/take-over-by-remove.mjs races the code before the
// lock file (a stale lock removed and created again): a third or more of the rounds have two holders.
const JOURNAL_JS = resolve(process.env['MBULK_LOCK_RACE_JOURNAL'] ?? 'dist/apply/journal.js');
const PROCESSES = 10;
const ROUNDS = 100;

/** Resolves with each line the child prints, in turn. */
function lines(child: ChildProcessByStdio<Writable, Readable, null>): () => Promise<string> {
  let buffer = '';
  const waiting: ((line: string) => void)[] = [];
  const queued: string[] = [];
  const push = (line: string) => {
    const w = waiting.shift();
    if (w) w(line);
    else queued.push(line);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
      push(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
    }
  });
  child.on('close', () => push('exited'));
  return () => {
    const q = queued.shift();
    return q !== undefined ? Promise.resolve(q) : new Promise((done) => waiting.push(done));
  };
}

/**
 * Processes open one run's journal at the same instant, over a stale lock left by a killed run:
 * exactly one may hold it. Each round gets a fresh journal and stale lock; every process is told
 * its path on stdin once all are ready (a barrier), and a holder keeps the lock until every
 * contender has answered. The processes stay up across rounds: 10 processes racing 100 times take
 * ~5 s where 100 processes racing once took ~38 s (load ~20), and catch the old take-over (remove
 * the stale lock, create it again) in every run: 26 to 58 of the 100 rounds had two or more
 * holders in five runs (MBULK_LOCK_RACE_JOURNAL, above).
 */
it(`a race of ${PROCESSES} processes, ${ROUNDS} times, for a run lock left stale by a killed process has exactly one winner each time`, async () => {
  expect(existsSync(JOURNAL_JS), 'build first: npm run build').toBe(true);
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-lock-race-'));
  // The lock of a killed run: a pid that no longer exists.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const script = `
    const { Journal } = await import(${JSON.stringify(pathToFileURL(JOURNAL_JS).href)});
    const readline = await import('node:readline');
    let held;
    process.stdout.write('ready\\n');
    for await (const line of readline.createInterface({ input: process.stdin })) {
      if (line === 'release') {
        held?.close();
        held = undefined;
        process.stdout.write('released\\n');
        continue;
      }
      try {
        held = Journal.open(line, { durable: false });
        process.stdout.write('held\\n');
      } catch (error) {
        process.stdout.write('refused ' + error.name + '\\n');
      }
    }`;
  const children = Array.from({ length: PROCESSES }, () =>
    spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const exits = children.map((child) => new Promise((done) => child.on('exit', done)));
  const next = children.map(lines);
  try {
    expect(await Promise.all(next.map((n) => n()))).toEqual(children.map(() => 'ready'));
    const holders: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const journal = join(dir, `journal-${round}.ndjson`);
      writeFileSync(`${journal}.lock`, String(dead));
      for (const child of children) child.stdin.write(`${journal}\n`);
      const answers = await Promise.all(next.map((n) => n()));
      expect(answers.filter((a) => a !== 'held' && a !== 'refused JournalLockedError')).toEqual([]);
      holders.push(answers.filter((a) => a === 'held').length);
      for (const child of children) child.stdin.write('release\n');
      expect(await Promise.all(next.map((n) => n()))).toEqual(children.map(() => 'released'));
    }
    expect(holders).toEqual(holders.map(() => 1));
  } finally {
    for (const child of children) child.stdin.end();
    await Promise.all(exits);
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

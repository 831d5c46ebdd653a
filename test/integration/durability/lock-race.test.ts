import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

const JOURNAL_JS = resolve('dist/apply/journal.js');

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
 * 100 processes (the built library: run `npm run build` first) open one run's journal at the
 * same instant, over a stale lock left by a killed run: exactly one may hold it. Each is released
 * by a byte on its stdin once all are ready (a barrier), and a holder keeps the lock until every
 * contender has answered.
 */
it('a 100-way race for a run lock left stale by a killed process has exactly one winner', async () => {
  expect(existsSync(JOURNAL_JS), 'build first: npm run build').toBe(true);
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-lock-race-'));
  const journal = join(dir, 'journal.ndjson');
  // The lock of a killed run: a pid that no longer exists.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  writeFileSync(`${journal}.lock`, String(dead));
  const script = `
    const { Journal } = await import(${JSON.stringify(pathToFileURL(JOURNAL_JS).href)});
    process.stdout.write('ready\\n');
    process.stdin.once('data', () => {
      try {
        Journal.open(${JSON.stringify(journal)}, { durable: false });
        process.stdout.write('held\\n');
        process.stdin.on('end', () => process.exit(0));
      } catch (error) {
        process.stdout.write('refused ' + error.name + '\\n');
        process.exit(0);
      }
    });`;
  const children = Array.from({ length: 100 }, () =>
    spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const exits = children.map((child) => new Promise((done) => child.on('exit', done)));
  const next = children.map(lines);
  expect(await Promise.all(next.map((n) => n()))).toEqual(children.map(() => 'ready'));
  for (const child of children) child.stdin.write('g');
  const answers = await Promise.all(next.map((n) => n()));
  for (const child of children) child.stdin.end();
  await Promise.all(exits);
  const others = answers.filter((a) => a !== 'held' && a !== 'refused JournalLockedError');
  expect(others).toEqual([]);
  expect(answers.filter((a) => a === 'held')).toHaveLength(1);
  expect(answers.filter((a) => a === 'refused JournalLockedError')).toHaveLength(99);
}, 300_000);

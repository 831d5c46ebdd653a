import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Journal,
  JournalLockedError,
  parseJournal,
  readJournal,
  stateOf,
  toJournalError,
} from '../../../src/apply/journal.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-journal-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('journal', () => {
  it('round-trips every state: done with result, failed, started-but-unfinished, not started', () => {
    const file = path.join(dir, 'journal.ndjson');
    const j = Journal.open(file);
    j.append({ op: 'create', phase: 'start', key: 'a', attempt: 1, idempotencyKey: 'k-a' });
    j.append({ op: 'create', phase: 'done', key: 'a', result: { id: 'p1' } });
    j.append({ op: 'create', phase: 'start', key: 'b', attempt: 1 });
    j.append({ op: 'create', phase: 'failed', key: 'b', error: { message: 'bad price', status: 400 } });
    j.append({ op: 'delta', phase: 'start', key: 'c', attempt: 1, idempotencyKey: 'k-c' });
    expect(j.stateOf('a')).toMatchObject({ status: 'done', result: { id: 'p1' } });
    j.close();

    const snap = readJournal(file);
    expect(snap.records).toBe(5);
    expect(snap.damagedLines).toBe(0);
    expect(stateOf(snap, 'a')).toEqual({
      status: 'done',
      result: { id: 'p1' },
      attempts: 1,
      reconciled: false,
    });
    expect(stateOf(snap, 'b')).toEqual({
      status: 'failed',
      error: { message: 'bad price', status: 400 },
      attempts: 1,
    });
    expect(stateOf(snap, 'c')).toEqual({
      status: 'unknown',
      attempts: 1,
      idempotencyKey: 'k-c',
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(stateOf(snap, 'd')).toEqual({ status: 'not_started' });

    // every line is one complete JSON record with a timestamp
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('t');
  });

  it('tolerates a torn last line and keeps appending on a fresh line', () => {
    const file = path.join(dir, 'journal.ndjson');
    const j = Journal.open(file);
    j.append({ op: 'x', phase: 'start', key: 'a' });
    j.append({ op: 'x', phase: 'done', key: 'a', result: 1 });
    j.close();
    // simulate a kill in the middle of writing a record
    fs.appendFileSync(file, '{"t":"2026-11-22T00:00:00.000Z","op":"x","phase":"start","ke');

    const torn = readJournal(file);
    expect(torn.damagedLines).toBe(1);
    expect(stateOf(torn, 'a')).toMatchObject({ status: 'done', result: 1 });

    const j2 = Journal.open(file);
    expect(j2.previous.damagedLines).toBe(1);
    j2.append({ op: 'x', phase: 'start', key: 'b' });
    j2.append({ op: 'x', phase: 'done', key: 'b', result: 2 });
    j2.close();
    const after = readJournal(file);
    expect(stateOf(after, 'b')).toMatchObject({ status: 'done', result: 2, attempts: 1 });
    expect(after.damagedLines).toBe(1);
  });

  it('counts attempts across sessions and lets the last record win', () => {
    const snap = parseJournal(
      [
        '{"op":"x","phase":"start","key":"a"}',
        '{"op":"x","phase":"unknown","key":"a","error":{"message":"socket hang up"}}',
        '{"op":"x","phase":"start","key":"a"}',
        '{"op":"x","phase":"done","key":"a","result":{"id":"7"},"reconciled":true}',
        'not json',
        '{"no":"key"}',
      ].join('\n'),
    );
    expect(stateOf(snap, 'a')).toEqual({
      status: 'done',
      result: { id: '7' },
      attempts: 2,
      reconciled: true,
    });
    expect(snap.damagedLines).toBe(2);
  });

  it('a missing journal is empty', () => {
    expect(readJournal(path.join(dir, 'nope.ndjson')).states.size).toBe(0);
  });

  it('refuses a second writer while the first is open, and takes over a stale lock', () => {
    const file = path.join(dir, 'journal.ndjson');
    const j = Journal.open(file);
    expect(() => Journal.open(file)).toThrow(JournalLockedError);
    j.close();
    // a lock left by a killed process (pid that does not exist)
    fs.writeFileSync(`${file}.lock`, '999999999');
    const j2 = Journal.open(file);
    expect((JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')) as { pid: number }).pid).toBe(process.pid);
    j2.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('keeps error facts but never a bearer token', () => {
    const error = Object.assign(new Error('401 for Authorization: Bearer sk_live_abc123'), {
      status: 401,
      code: 'invalid_token',
      requestId: 'req_1',
      exitCode: 4,
    });
    const kept = toJournalError(error);
    expect(kept).toMatchObject({ status: 401, code: 'invalid_token', requestId: 'req_1', exitCode: 4 });
    expect(kept.message).not.toContain('sk_live_abc123');
  });
});

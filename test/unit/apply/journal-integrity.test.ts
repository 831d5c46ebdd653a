import { mkdtempSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, journalDamage, parseJournal, readJournal } from '../../../src/apply/journal.js';

function journalWith(records: number): { file: string; text: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-journal-integrity-'));
  const file = join(dir, 'journal.ndjson');
  const j = Journal.open(file, { durable: false, lock: false });
  for (let i = 0; i < records; i++)
    j.append({ op: 'x', phase: i % 2 === 0 ? 'start' : 'done', key: `k${i >> 1}` });
  j.close();
  return { file, text: readFileSync(file, 'latin1') };
}

describe('journal integrity', () => {
  it('numbers and checksums every record', () => {
    const { text } = journalWith(4);
    const lines = text.trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([1, 2, 3, 4]);
    expect(lines.every((l) => /,"crc":\d+\}$/.test(l))).toBe(true);
    const snap = parseJournal(text);
    expect(snap).toMatchObject({ records: 4, lastSeq: 4, tornLines: 0, damage: [] });
  });

  it('recognises a torn last record as torn, not damage, also once a later session wrote after it', () => {
    const { file, text } = journalWith(4);
    const lines = text.trimEnd().split('\n');
    const torn = `${lines.slice(0, 3).join('\n')}\n${(lines[3] as string).slice(0, 20)}`;
    expect(parseJournal(torn)).toMatchObject({ records: 3, lastSeq: 3, tornLines: 1, damage: [] });
    writeFileSync(file, torn, 'latin1');
    const j = Journal.open(file, { durable: false, lock: false });
    j.append({ op: 'x', phase: 'done', key: 'k1' });
    j.close();
    expect(readJournal(file)).toMatchObject({ records: 4, lastSeq: 4, tornLines: 1, damage: [] });
  });

  it('calls a changed byte, a missing record or zeroed bytes damage', () => {
    const { text } = journalWith(6);
    const lines = text.trimEnd().split('\n');
    const flipped = [...lines];
    flipped[1] = (flipped[1] as string).replace('"op":"x"', '"op":"y"');
    expect(parseJournal(flipped.join('\n')).damage).not.toEqual([]);
    const gap = [...lines.slice(0, 2), ...lines.slice(3)];
    expect(parseJournal(gap.join('\n')).damage.join()).toContain('record 4 follows record 2');
    expect(parseJournal('\u0000'.repeat(text.length)).damage).not.toEqual([]);
    const zeroedMiddle = [...lines.slice(0, 2), '\u0000'.repeat(40), ...lines.slice(3)];
    expect(parseJournal(zeroedMiddle.join('\n')).damage).not.toEqual([]);
  });

  it('a journal shorter than the run recorded is damaged (truncated at a line boundary)', () => {
    const { text } = journalWith(6);
    const lines = text.trimEnd().split('\n');
    const cut = parseJournal(`${lines.slice(0, 3).join('\n')}\n`);
    expect(cut.damage).toEqual([]);
    expect(journalDamage(cut, { recordedSeq: 6 }).join()).toContain(
      'it ends at record 3, but the run recorded 6',
    );
    expect(journalDamage(cut, { recordedSeq: 3 })).toEqual([]);
    // A killed run recorded no length in run.json: its backup log names how far the journal got.
    expect(journalDamage(cut, { backupSeq: 5 }).join()).toContain("the run's backup log names record 5");
    expect(journalDamage(cut, { backupSeq: 3 })).toEqual([]);
  });

  it('a short write is completed by looping; a failed write stops the journal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-journal-short-'));
    const file = join(dir, 'journal.ndjson');
    let full = false;
    const j = Journal.open(file, {
      durable: false,
      lock: false,
      fs: {
        writeSync: (fd, buffer, offset, length) => {
          if (full) throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
          // Seven bytes at a time.
          return writeSyncPart(fd, buffer, offset, Math.min(7, length));
        },
      },
    });
    j.append({ op: 'x', phase: 'start', key: 'a' });
    expect(readJournal(file)).toMatchObject({ records: 1, damage: [] });
    full = true;
    expect(() => j.append({ op: 'x', phase: 'done', key: 'a' })).toThrow(
      /journal .*ENOSPC.*mbulk runs resume/,
    );
    full = false;
    // Stopped: nothing more is appended after a failed write.
    expect(() => j.append({ op: 'x', phase: 'done', key: 'a' })).toThrow(/ENOSPC/);
    j.close();
    expect(readJournal(file).records).toBe(1);
  });
});

function writeSyncPart(fd: number, buffer: Uint8Array, offset: number, length: number): number {
  return writeSync(fd, buffer, offset, length);
}

describe('journal: settled damage', () => {
  it('a `settled` record puts the damage before it out of force (kept on record); damage after it still counts', () => {
    const { file, text } = journalWith(4);
    const lines = text.trimEnd().split('\n');
    // Record 2 zeroed: damage.
    writeFileSync(
      file,
      `${lines[0]}\n${'\u0000'.repeat((lines[1] as string).length)}\n${lines.slice(2).join('\n')}\n`,
      'latin1',
    );
    expect(readJournal(file).damage.length).toBeGreaterThan(0);
    const j = Journal.open(file, { durable: false, lock: false });
    j.append({ op: 'reconcile', phase: 'settled', key: '(journal)' });
    j.close();
    const settled = readJournal(file);
    expect(settled.damage).toEqual([]);
    expect(settled.settled?.damage.join(' ')).toContain('records are missing');
    expect(journalDamage(settled, { recordedSeq: 5 })).toEqual([]);
    const withMarker = readFileSync(file, 'latin1').trimEnd().split('\n');
    // Foreign bytes after the settled record: that damage counts.
    writeFileSync(file, `${withMarker.join('\n')}\nGARBAGE\n`, 'latin1');
    expect(readJournal(file).damage).toEqual(['line 6: not a complete record']);
    // The settled record cut off: the earlier damage is back in force.
    writeFileSync(file, `${withMarker.slice(0, -1).join('\n')}\n`, 'latin1');
    expect(readJournal(file).damage.length).toBeGreaterThan(0);
  });
});

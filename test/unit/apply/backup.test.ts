import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BackupLog,
  backupJournalSeq,
  finalizeBackup,
  readBackup,
  readBackupLog,
} from '../../../src/apply/backup.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-backup-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('backup', () => {
  it('names how long the journal was: on new entries, else on a line of its own that readers of entries skip', () => {
    const log = path.join(dir, 'backup.ndjson');
    expect(backupJournalSeq(log)).toBe(0);
    const b = BackupLog.open(log);
    expect(b.record([{ type: 'inventory_item', id: 'i1', before: { quantity: 1 } }], 1)).toBe(1);
    expect(backupJournalSeq(log)).toBe(1);
    // Already saved (the batch before the per-item fallback saved it): only the length is written.
    expect(b.record([{ type: 'inventory_item', id: 'i1', before: { quantity: 2 } }], 7)).toBe(0);
    expect(backupJournalSeq(log)).toBe(7);
    b.close();
    fs.appendFileSync(log, '{"journal_seq":9'); // torn: not evidence
    expect(backupJournalSeq(log)).toBe(7);
    expect(readBackupLog(log)).toEqual([
      expect.objectContaining({ id: 'i1', before: { quantity: 1 }, journal_seq: 1 }),
    ]);
  });

  it('keeps the first before-state per entity, across reopen (resume) and a torn last line', () => {
    const log = path.join(dir, 'backup.ndjson');
    const b = BackupLog.open(log);
    expect(b.record([{ type: 'product', id: 'p1', before: { price: 100 } }])).toBe(1);
    expect(b.record([{ type: 'product', id: 'p1', before: { price: 90 } }])).toBe(0);
    b.close();
    fs.appendFileSync(log, '{"type":"product","id":"p2","bef'); // killed mid-write

    const resumed = BackupLog.open(log);
    expect(resumed.has('product', 'p1')).toBe(true);
    expect(resumed.has('product', 'p2')).toBe(false);
    // after a partial apply the live price is 90: must not replace the real before-state
    resumed.record([
      { type: 'product', id: 'p1', before: { price: 90 } },
      { type: 'product', id: 'p2', before: null },
      { type: 'inventory_item', id: 'p1', before: { quantity: 3 } },
    ]);
    resumed.close();

    const entries = readBackupLog(log);
    expect(entries.map((e) => [e.type, e.id, e.before])).toEqual([
      ['product', 'p1', { price: 100 }],
      ['product', 'p2', null],
      ['inventory_item', 'p1', { quantity: 3 }],
    ]);
  });

  it('finalizes backup.json as valid JSON with every entry', () => {
    const log = path.join(dir, 'backup.ndjson');
    const json = path.join(dir, 'backup.json');
    const b = BackupLog.open(log, { durable: false });
    for (let i = 0; i < 2500; i++)
      b.record([{ type: 'inventory_item', id: `i${i}`, before: { quantity: i } }]);
    b.close();
    expect(finalizeBackup(log, json, { runId: 'r1' })).toBe(2500);
    const parsed = JSON.parse(fs.readFileSync(json, 'utf8'));
    expect(parsed).toMatchObject({ version: 1, run_id: 'r1' });
    expect(parsed.entities).toHaveLength(2500);
    expect(parsed.entities[2499]).toMatchObject({ id: 'i2499', before: { quantity: 2499 } });
    expect(readBackup(json).length).toBe(2500);
    expect(readBackup(json, log).length).toBe(2500);

    const empty = path.join(dir, 'empty.json');
    finalizeBackup(path.join(dir, 'none.ndjson'), empty);
    expect(JSON.parse(fs.readFileSync(empty, 'utf8')).entities).toEqual([]);
  });

  it('a damaged backup.json (no ndjson log) is a clear error naming the file, not a bare SyntaxError', () => {
    const json = path.join(dir, 'backup.json');
    fs.writeFileSync(json, '{"version":1,"entities":[{"type":"product"');
    expect(() => readBackup(json, path.join(dir, 'absent.ndjson'))).toThrow(/backup\.json is damaged/);
    fs.writeFileSync(json, 'null');
    expect(() => readBackup(json)).toThrow(/is not a backup file/);
  });
});

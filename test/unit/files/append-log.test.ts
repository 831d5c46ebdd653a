import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppendLog } from '../../../src/files/append-log.js';

// The append log under the journal and the backup log: a torn last line never swallows the next
// record, and a record is written whole or reported.

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-append-log-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('AppendLog', () => {
  it('ends a torn last line when it opens, so the next record stands on its own line', () => {
    const file = path.join(dir, 'log.ndjson');
    fs.writeFileSync(file, '{"n":1}\n{"n":2,"cut');
    const log = AppendLog.open(file, { durable: false });
    log.append('{"n":3}\n');
    log.close();
    expect(fs.readFileSync(file, 'utf8').split('\n')).toEqual(['{"n":1}', '{"n":2,"cut', '{"n":3}', '']);
    // An intact file, or an empty one, gets no extra line.
    const again = AppendLog.open(file, { durable: false });
    again.append('{"n":4}\n');
    again.close();
    expect(fs.readFileSync(file, 'utf8').endsWith('{"n":3}\n{"n":4}\n')).toBe(true);
    const fresh = path.join(dir, 'fresh.ndjson');
    AppendLog.open(fresh).close();
    expect(fs.readFileSync(fresh, 'utf8')).toBe('');
  });

  it('continues short writes until the whole record is written, and reports a write that makes no progress', () => {
    const file = path.join(dir, 'log.ndjson');
    const calls: number[] = [];
    let stall = false;
    const log = AppendLog.open(file, {
      durable: false,
      fs: {
        writeSync: (fd, buffer, offset, length) => {
          calls.push(length);
          if (stall) return 0;
          return fs.writeSync(fd, buffer, offset, Math.min(length, 3));
        },
      },
    });
    log.append('{"record":"ünïcode"}\n');
    expect(calls.length).toBeGreaterThan(5);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"record":"ünïcode"}\n');
    stall = true;
    expect(() => log.append('{"x":1}\n')).toThrow(expect.objectContaining({ code: 'EIO' }));
    log.close();
    expect(log.closed).toBe(true);
    expect(() => log.append('{"x":2}\n')).toThrow(/is closed/);
  });

  it('flushes durably and closes once', async () => {
    const file = path.join(dir, 'log.ndjson');
    const log = AppendLog.open(file);
    log.append('{"a":1}\n');
    await Promise.all([log.flush(), log.flush()]);
    log.close();
    log.close();
    await expect(log.flush()).resolves.toBeUndefined();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n');
  });
});

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AtomicFile,
  AtomicFileSync,
  writeFileAtomic,
  writeThenCommit,
} from '../../../src/files/atomic-file.js';

// The one atomic-file primitive: the target holds the old content or the new, never part of one,
// and no temporary file is left behind whatever happens.

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-atomic-file-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const entries = (): string[] => fs.readdirSync(dir).sort();

describe('writeFileAtomic and AtomicFileSync', () => {
  it('replaces the whole content, with the mode asked for a new file, and leaves no temporary file', () => {
    const file = path.join(dir, 'state.json');
    writeFileAtomic(file, '{"a":1}\n', { mode: 0o600 });
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    writeFileAtomic(file, Buffer.from('{"a":2}\n'));
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":2}\n');
    expect(entries()).toEqual(['state.json']);
  });

  it('keeps the old content until commit; discard leaves it and removes the temporary file', () => {
    const file = path.join(dir, 'big.json');
    fs.writeFileSync(file, 'old');
    const out = new AtomicFileSync(file);
    out.write('new ');
    out.write(Buffer.from('content'));
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    expect(entries()).toHaveLength(2);
    out.discard();
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    expect(entries()).toEqual(['big.json']);
    expect(() => out.write('more')).toThrow(/already closed/);
    const again = new AtomicFileSync(file);
    again.write('new content');
    again.commit();
    again.discard();
    expect(fs.readFileSync(file, 'utf8')).toBe('new content');
    expect(entries()).toEqual(['big.json']);
  });

  it('refuses a folder as target when it opens, before anything is written', () => {
    const folder = path.join(dir, 'folder');
    fs.mkdirSync(folder);
    expect(() => writeFileAtomic(folder, 'x')).toThrow(/EISDIR/);
    expect(entries()).toEqual(['folder']);
  });
});

describe('AtomicFile (streamed)', () => {
  it('writes text in flushes with backpressure, and replaces the target only on commit', async () => {
    const file = path.join(dir, 'export.json');
    fs.writeFileSync(file, 'previous');
    const out = new AtomicFile(file, 16);
    await out.ready();
    for (let i = 0; i < 1000; i++) await out.write(`line ${i}\n`);
    expect(fs.readFileSync(file, 'utf8')).toBe('previous');
    await out.commit();
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split('\n')).toHaveLength(1001);
    expect(text.endsWith('line 999\n')).toBe(true);
    expect(entries()).toEqual(['export.json']);
  });

  it('writes every text byte for byte as UTF-8, short or longer than its buffer, across its boundaries', async () => {
    const file = path.join(dir, 'mixed.csv');
    const out = new AtomicFile(file, 64);
    await out.ready();
    const pieces = ['\uFEFFsku,qty\r\n'];
    // Lengths 0..40 (past 64 / 3, a buffer's worth of the worst case, and past 64 itself),
    // with 2-, 3- and 4-byte characters and a lone surrogate (written as U+FFFD, as Buffer.from does).
    const alphabet = ['a', 'é', '中', '😀', ',', '"', '\ud800'];
    for (let i = 0; i < 400; i++) {
      let text = '';
      for (let k = 0; k < i % 41; k++) text += alphabet[(i * 7 + k) % alphabet.length] as string;
      pieces.push(text + (i % 3 === 0 ? '\r\n' : ''));
    }
    // Past the stream's own buffer (16 KiB): its write answers false, and the flush waits for drain.
    pieces.push('x'.repeat(40_000), 'end\r\n');
    for (const piece of pieces) await out.write(piece);
    await out.commit();
    expect(fs.readFileSync(file).equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
  });

  it('discard leaves the target as it was, and a later commit fails instead of writing', async () => {
    const file = path.join(dir, 'export.json');
    fs.writeFileSync(file, 'previous');
    const out = new AtomicFile(file);
    await out.write('half of it');
    await out.discard();
    await expect(out.commit()).rejects.toThrow(/cannot write .*export\.json: discarded/);
    expect(fs.readFileSync(file, 'utf8')).toBe('previous');
    expect(entries()).toEqual(['export.json']);
  });

  it('reports a folder or a missing folder as target by the path, and leaves nothing behind', async () => {
    const folder = path.join(dir, 'folder');
    fs.mkdirSync(folder);
    await expect(new AtomicFile(folder).ready()).rejects.toThrow(/cannot write .*folder: EISDIR/);
    const missing = new AtomicFile(path.join(dir, 'nope', 'x.json'));
    await expect(missing.ready()).rejects.toThrow(/cannot write .*x\.json: ENOENT/);
    await expect(missing.commit()).rejects.toThrow(/ENOENT/);
    expect(entries()).toEqual(['folder']);
    expect(fs.readdirSync(folder)).toEqual([]);
  });
});

describe('writeThenCommit', () => {
  it('commits what the work wrote, or discards it when the work throws', async () => {
    const file = path.join(dir, 'out.json');
    fs.writeFileSync(file, 'previous');
    const failed = new AtomicFile(file);
    await expect(
      writeThenCommit(failed, async () => {
        await failed.write('half');
        throw new Error('the source failed');
      }),
    ).rejects.toThrow('the source failed');
    expect(fs.readFileSync(file, 'utf8')).toBe('previous');
    expect(entries()).toEqual(['out.json']);
    const done = new AtomicFile(file);
    expect(
      await writeThenCommit(done, async () => {
        await done.write('whole');
        return 1;
      }),
    ).toBe(1);
    expect(fs.readFileSync(file, 'utf8')).toBe('whole');
    expect(entries()).toEqual(['out.json']);
  });
});

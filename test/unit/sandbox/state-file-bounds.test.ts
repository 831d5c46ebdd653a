import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StateFileError } from '../../../src/errors/state-file-error.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { readSnapshotFile, readStateFile } from '../../../src/sandbox/persistence.js';
import { SandboxStore } from '../../../src/sandbox/store.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-state-bounds-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const MiB = 1 << 20;
/** Byte offsets are of UTF-8 bytes (the generated store has accented names). */
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** A real state file's text, cut just inside its products array. */
const real = new SandboxStore({ state: generateStore({ products: 3, customers: 2, orders: 2, seed: 3 }) })
  .stateChunks('2026-11-28T00:00:00.000Z')
  .join('');
const HEAD = real.slice(0, real.indexOf('"products":[') + '"products":['.length);
const TAIL = '],"customers":[],"orders":[],"templates":[]}';

/** Writes the pieces one after another (a big piece may be repeated `times`). */
function write(name: string, pieces: (string | [string, number])[]): string {
  const file = path.join(dir, name);
  const fd = fs.openSync(file, 'w');
  for (const p of pieces) {
    if (typeof p === 'string') fs.writeSync(fd, p);
    else for (let i = 0; i < p[1]; i++) fs.writeSync(fd, p[0]);
  }
  fs.closeSync(fd);
  return file;
}

async function failure(read: Promise<unknown>): Promise<string> {
  const error = await read.then(
    () => new Error('read without an error'),
    (e: unknown) => e,
  );
  expect(StateFileError.is(error), String(error)).toBe(true);
  expect((error as Error).stack ?? '').not.toContain('TypeError');
  return (error as Error).message;
}

describe('the state and seed reader is bounded', () => {
  it('refuses nesting deeper than the format needs at its byte, without parsing it (40 MB of brackets)', async () => {
    const n = 20 * 1000 * 1000;
    const file = write('nested.json', [HEAD, '['.repeat(n), ']'.repeat(n), TAIL]);
    const message = await failure(readSnapshotFile(file));
    expect(message).toBe(
      `${file}: not a store snapshot (member "products" nests deeper than 12 levels at byte ${bytes(HEAD) + 10}); ` +
        'give a snapshot written by mbulk export snapshot',
    );
  });

  it('refuses nesting in a member parsed whole (me) naming it', async () => {
    const at = real.indexOf('"me":') + 5;
    const file = write('nested-me.json', [real.slice(0, at), '['.repeat(40), ']'.repeat(40), real.slice(at)]);
    expect(await failure(readStateFile(file))).toContain(
      `(member "me" nests deeper than 12 levels at byte ${bytes(real.slice(0, at)) + 11}); delete it, or start the sandbox with --reset`,
    );
  });

  it('refuses an entity over its cap at the entity’s first byte (a 20 MiB string)', async () => {
    const file = write('string.json', [HEAD, '{"title":"', ['a'.repeat(MiB), 20], '"}', TAIL]);
    expect(await failure(readSnapshotFile(file))).toContain(
      `${file}: not a store snapshot (an element of "products" is over its cap of ${8 * MiB} bytes at byte ${bytes(HEAD)})`,
    );
  });

  it('refuses a sandbox member over its cap (a 70 MiB string) and a key of 300 KiB', async () => {
    const body = real.slice(0, real.lastIndexOf('"sandbox":'));
    const file = write('big-sandbox.json', [body, '"sandbox":"', ['b'.repeat(MiB), 70], '"}']);
    expect(await failure(readStateFile(file))).toContain(
      `(member "sandbox" is over its cap of ${64 * MiB} bytes at byte ${bytes(body) + 10})`,
    );
    const key = write('big-key.json', [body, '"', ['k'.repeat(1024), 300], '":1}']);
    expect(await failure(readStateFile(key))).toContain(
      `(a key longer than 256 bytes at byte ${bytes(body)})`,
    );
  });

  it('refuses an unknown top-level member, naming it and its byte', async () => {
    const body = real.slice(0, -1);
    const file = write('unknown.json', [body, ',"sandboxx":{}}']);
    expect(await failure(readStateFile(file))).toContain(
      `(unknown member "sandboxx" at byte ${bytes(body) + 1})`,
    );
  });

  it('refuses a wrong or unknown sandbox member with its path and byte, not a JavaScript error', async () => {
    const body = real.slice(0, real.lastIndexOf('"sandbox":'));
    const at = bytes(body) + 10;
    const extras = JSON.parse(real.slice(body.length + 10, -1)) as Record<string, unknown>;
    const cases: [unknown, string][] = [
      [{ version: 1 }, 'sandbox.counters: Invalid input: expected object, received undefined'],
      [{ ...extras, seqs: { ...(extras['seqs'] as object), products: 'x' } }, 'sandbox.seqs.products:'],
      [{ ...extras, counters: { id: 1, seq: 1, clock: 0, extra: 1 } }, 'sandbox.counters.extra:'],
      [{ ...extras, messages: [{ id: 1 }] }, 'sandbox.messages.0.id:'],
    ];
    for (const [i, [value, where]] of cases.entries()) {
      const file = write(`sandbox-${i}.json`, [body, `"sandbox":${JSON.stringify(value)}}`]);
      const message = await failure(readStateFile(file));
      expect(message).toContain(`${file}: not a store snapshot (${where}`);
      expect(message).toContain(` at byte ${at}); delete it`);
    }
  });

  it('still reads the state file the sandbox writes, whole', async () => {
    const file = write('real.json', [real]);
    const state = await readStateFile(file);
    expect(state).toEqual(JSON.parse(real));
    expect(
      new SandboxStore(state === null ? {} : { state }).stateChunks('2026-11-28T00:00:00.000Z').join(''),
    ).toBe(real);
  });
});

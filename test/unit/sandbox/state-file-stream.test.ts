import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AtomicFileSync } from '../../../src/files/atomic-file.js';
import { StateFileError } from '../../../src/errors/state-file-error.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import {
  JsonObjectScanner,
  JsonStreamError,
  type JsonObjectSink,
} from '../../../src/sandbox/json-object-reader.js';
import { readSnapshotFile, readStateFile, StateSaver } from '../../../src/sandbox/persistence.js';
import { SandboxApp } from '../../../src/sandbox/app.js';
import { SandboxStore } from '../../../src/sandbox/store.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-state-stream-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Scans `text` fed in chunks of `size` bytes; returns the object the sink rebuilt. */
function scan(text: string, size: number, streamed = ['list']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const sink: JsonObjectSink = {
    arrayStart: (key) => (out[key] = []),
    element: (key, value, index) => {
      const list = out[key] as unknown[];
      expect(index).toBe(list.length);
      list.push(value);
    },
    member: (key, value) => (out[key] = value),
  };
  const scanner = new JsonObjectScanner(new Set(streamed), sink);
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size));
  scanner.end();
  return out;
}

const tricky = {
  a: 'quote " and backslash \\ and \\" and "\\\\" end\\',
  list: [
    { s: '\\\\\\"', t: 'ü€😀 multi-byte', n: [1, [2, { x: '}]' }]] },
    'plain "string" ]',
    -1.5e3,
    true,
    null,
    [],
    {},
  ],
  empty: [],
  n: 0,
  z: { nested: ['[', '{', ','] },
};

describe('the streaming state-file reader', () => {
  it('rebuilds any object exactly, whatever the chunk boundaries (escapes, multi-byte, nesting)', () => {
    for (const text of [JSON.stringify(tricky), JSON.stringify(tricky, null, 2)]) {
      for (const size of [1, 2, 3, 5, 7, 13, 64, 1 << 20]) {
        expect(scan(text, size), `chunks of ${size}`).toEqual(tricky);
      }
    }
    expect(scan('{}', 1)).toEqual({});
    expect(scan(' { "list" : [ ] } ', 1)).toEqual({ list: [] });
  });

  it('refuses what is not one JSON object, with the byte offset', () => {
    for (const bad of [
      '',
      '[1]',
      '{"list":[1,2',
      '{"list":[1,]}',
      '{"list":[,1]}',
      '{"a":1,}',
      '{"a":1} x',
      '{"a" 1}',
      '{"list":[{"x":tru}]}',
      '{"a":"unterminated}',
    ]) {
      expect(() => scan(bad, 3), bad).toThrow(JsonStreamError);
    }
  });

  it("round-trips the sandbox's own state file through the chunked writer and the streaming reader", async () => {
    const store = new SandboxStore({
      state: generateStore({ products: 400, customers: 50, orders: 120, seed: 7 }),
    });
    store.updateProduct(store.toSnapshot().products[3]?.id as string, { name: 'Renamed "quoted" \\ ü' });
    const file = path.join(dir, 'state.json');
    const saver = new StateSaver(store, file, 0);
    saver.schedule();
    await saver.flush();
    const read = await readStateFile(file);
    const at = read?.exported_at;
    expect(read).toEqual({ ...store.toState(), exported_at: at });
    // And it loads into a store that saves the same state again.
    const again = new SandboxStore({ state: read as NonNullable<typeof read> }).toState();
    expect({ ...again, exported_at: at }).toEqual(read);
    expect(read?.products).toHaveLength(400);
  });

  it('saves a store as a stream: a megabyte a write, never the whole state held at once', async () => {
    const store = new SandboxStore({
      state: generateStore({ products: 1500, customers: 0, orders: 0, seed: 3 }),
    });
    const expected = store.stateChunks('2026-11-26T00:00:00.000Z').join('');
    expect(expected.length).toBeGreaterThan(3 * 2 ** 20);
    // Count the pieces the store has made when each write(2) happens.
    let made = 0;
    const writeState = store.writeState.bind(store);
    store.writeState = (write, at) => writeState((piece) => (made++, write(piece)), at);
    const writes: { chars: number; madeSoFar: number }[] = [];
    const original = AtomicFileSync.prototype.write;
    vi.spyOn(AtomicFileSync.prototype, 'write').mockImplementation(function (
      this: AtomicFileSync,
      data: string | Uint8Array,
    ) {
      writes.push({ chars: data.length, madeSoFar: made });
      original.call(this, data);
    });
    const file = path.join(dir, 'streamed.json');
    const saver = new StateSaver(store, file, 0);
    saver.schedule();
    await saver.flush();
    vi.restoreAllMocks();
    const text = fs.readFileSync(file, 'utf8');
    expect(text.replace(/"exported_at":"[^"]*"/, '"exported_at":"2026-11-26T00:00:00.000Z"')).toBe(expected);
    // Written while the state was still being made, about a megabyte at a time: never all of it
    // held at once.
    expect(writes.length).toBeGreaterThanOrEqual(3);
    expect(writes[0]?.madeSoFar).toBeLessThan(made / 2);
    expect(Math.max(...writes.map((w) => w.chars))).toBeLessThan(2 ** 20 + 64 * 1024);
  });

  it('GET /__sandbox/state answers the state as bytes, never as one string', async () => {
    const store = new SandboxStore({
      state: generateStore({ products: 600, customers: 20, orders: 30, seed: 5 }),
    });
    const app = new SandboxApp(store);
    const joins = vi.spyOn(Array.prototype, 'join');
    const res = await app.handle({ method: 'GET', url: '/__sandbox/state', headers: {}, body: '' });
    // Joined in blocks of about a megabyte, never the whole state (a big one is past V8's limit).
    const longest = Math.max(0, ...joins.mock.results.map((r) => String(r.value).length));
    vi.restoreAllMocks();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBeInstanceOf(Uint8Array);
    const text = Buffer.from(res.body as Uint8Array).toString('utf8');
    expect(text.length).toBeGreaterThan(2 ** 20);
    expect(longest).toBeLessThan(2 ** 20 + 64 * 1024);
    const state = JSON.parse(text) as { exported_at: string };
    expect(state).toEqual({ ...store.toState(), exported_at: state.exported_at });
  });

  it('names the file and the entity when one entity of a big list is invalid', async () => {
    const state = new SandboxStore({
      state: generateStore({ products: 30, customers: 0, orders: 0, seed: 7 }),
    }).toState();
    (state.products[17] as { price: unknown }).price = 'free';
    const file = path.join(dir, 'bad-entity.json');
    fs.writeFileSync(file, JSON.stringify(state));
    const error = await readSnapshotFile(file).catch((e: unknown) => e);
    expect(StateFileError.is(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(`${file}: not a store snapshot (products.17.price:`);
    (state.products[17] as { price: unknown }).price = 100;
    const missing = path.join(dir, 'no-orders.json');
    const { orders: _orders, ...rest } = state;
    fs.writeFileSync(missing, JSON.stringify(rest));
    expect(((await readSnapshotFile(missing).catch((e: unknown) => e)) as Error).message).toContain(
      'not a store snapshot (orders:',
    );
  });
});

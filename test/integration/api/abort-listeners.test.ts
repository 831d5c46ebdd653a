import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

// A run shares one AbortSignal (Ctrl-C) across every request it makes. undici's fetch keeps an
// 'abort' listener on the signal for each Request until that Request is garbage-collected, and
// raises the limit to 1500: a resume or rollback making 1,501+ requests printed
// "MaxListenersExceededWarning: Possible EventTarget memory leak detected. 1501 abort listeners
// added to [AbortSignal]". Each request now gets its own signal, linked for its lifetime only.
let sandbox: RunningSandbox;
const warnings: Error[] = [];
const onWarning = (w: Error): void => {
  warnings.push(w);
};
beforeEach(async () => {
  sandbox = await startSandbox({ seed: 'samples/store.json' });
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  await sandbox.close();
});

it('1,600 requests sharing one run signal leave no abort listener behind and raise no warning', async () => {
  const client = new MerchantClient({ baseUrl: sandbox.url, token: sandbox.token, maxConcurrency: 8 });
  const abort = new AbortController();
  try {
    // 4 × 400 requests, as a resume or rollback sends them: none may leave a listener behind.
    const left: number[] = [];
    for (let round = 0; round < 4; round++) {
      const ids = await Promise.all(
        Array.from({ length: 400 }, () => client.me({ signal: abort.signal }).then((s) => s.id)),
      );
      expect(new Set(ids).size).toBe(1);
      left.push(getEventListeners(abort.signal, 'abort').length);
    }
    expect(left).toEqual([0, 0, 0, 0]);
    // Warnings are emitted on the next tick.
    await new Promise((done) => setImmediate(done));
    const leaks = warnings.filter((w) => w.name === 'MaxListenersExceededWarning');
    expect(leaks.map((w) => w.message)).toEqual([]);
    // The signal still works for what follows: an abort stops the next request.
    abort.abort(new Error('stop'));
    await expect(client.me({ signal: abort.signal })).rejects.toThrow('stop');
  } finally {
    await client.close();
  }
}, 120_000);

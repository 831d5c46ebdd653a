import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MerchantClient } from '../../../src/api/merchant-client.js';

/**
 * A server on its own thread (a worker), so that it takes requests while the test's thread is busy
 * parsing: it sets `arrived[0]` to 1 when a request for /second arrives, and answers every request
 * with a small JSON body, keep-alive.
 */
function serverOnItsOwnThread(): Promise<{ url: string; arrived: Int32Array; stop: () => Promise<void> }> {
  const arrived = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `
    const { createServer } = require('node:http');
    const { parentPort, workerData } = require('node:worker_threads');
    const server = createServer((req, res) => {
      if (req.url === '/second') Atomics.store(workerData.arrived, 0, 1);
      req.resume();
      req.on('end', () => res.end('{"ok":true}'));
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
    parentPort.on('message', () => server.close(() => process.exit(0)));
    `,
    { eval: true, workerData: { arrived } },
  );
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (port: number) =>
      resolve({
        url: `http://127.0.0.1:${port}`,
        arrived,
        stop: async () => {
          worker.postMessage('stop');
          await new Promise((r) => worker.once('exit', r));
        },
      }),
    );
  });
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('a request started from a body hook (the next page of a cursor chain)', () => {
  it('reaches the server while the body it was started from is still being parsed', async () => {
    const server = await serverOnItsOwnThread();
    stop = server.stop;
    const client = new MerchantClient({ baseUrl: server.url, token: 'tok_0123456789' });
    try {
      // A first request, so that the next ones reuse an idle keep-alive socket, which undici
      // writes on only from an immediate of its own (its idle-socket check).
      await client.request({ method: 'GET', path: '/warm', schema: z.unknown() });
      let secondArrivedDuringParse = false;
      let second: Promise<unknown> | undefined;
      // A parse that holds the thread for up to 3 s, watching for the second request.
      const slowParse = z.unknown().transform(() => {
        const until = Date.now() + 3000;
        while (Date.now() < until && !secondArrivedDuringParse) {
          secondArrivedDuringParse = Atomics.load(server.arrived, 0) === 1;
        }
      });
      await client.request({
        method: 'GET',
        path: '/first',
        schema: slowParse,
        onText: () => {
          second = client.request({ method: 'GET', path: '/second', schema: z.unknown() });
          return true;
        },
      });
      await second;
      expect(Atomics.load(server.arrived, 0)).toBe(1);
      expect(secondArrivedDuringParse).toBe(true);
    } finally {
      await client.close();
    }
  });
});

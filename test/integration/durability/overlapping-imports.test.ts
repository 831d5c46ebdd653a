import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { localServers } from '../../helpers/local-servers.js';
import { runCli } from '../../helpers/run-cli.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});
const listen = localServers();

/**
 * A proxy in front of TARGET that holds every write until `open()`: the first run stays in its
 * apply, holding the store's lock, for as long as the test needs, without a latency to wait out.
 */
async function writeGate(target: string): Promise<{ url: string; open: () => void }> {
  let open!: () => void;
  const opened = new Promise<void>((done) => (open = done));
  const url = await listen(
    createServer((req, res) => {
      void (async () => {
        if (req.method !== 'GET') await opened;
        const upstream = request(
          `${target}${req.url ?? '/'}`,
          { method: req.method, headers: req.headers },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      })();
    }),
  );
  return { url, open };
}

it('two overlapping `import stock --apply --yes` on one store: one applies, the other exits 3 with zero writes and names the running process', async () => {
  const snapshot = generateStore({ products: 10, customers: 0, orders: 0, seed: 11 });
  const items = snapshot.products
    .filter((p) => p.inventory_enabled)
    .flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
    .filter((i) => i?.sku)
    .slice(0, 8)
    .map((i) => ({ itemId: i!.item_id, sku: i!.sku as string, quantity: i!.quantity }));
  // One PATCH per item (strict: no batch route), one at a time, the first held at the gate: the
  // first run is still applying when the second starts.
  sandbox = await startSandbox({ seed: snapshot, strict: true });
  const s = sandbox;
  const gate = await writeGate(s.url);
  const locks = mkdtempSync(join(tmpdir(), 'mbulk-locks-'));
  const env = { MERCHANT_API_URL: gate.url, MERCHANT_API_TOKEN: s.token, MBULK_LOCK_DIR: locks };
  // Two terminals, two working directories, one store.
  const a = mkdtempSync(join(tmpdir(), 'mbulk-overlap-a-'));
  const b = mkdtempSync(join(tmpdir(), 'mbulk-overlap-b-'));
  const sheet = `sku,delta_quantity\n${items.map((i) => `${i.sku},5`).join('\n')}\n`;
  writeFileSync(join(a, 'stock.csv'), sheet);
  writeFileSync(join(b, 'stock.csv'), sheet);

  const first = runCli(
    ['import', 'stock', 'stock.csv', '--apply', '--yes', '--concurrency', '1', '--json'],
    env,
    a,
  );
  // Once the first holds the store's lock and knows its run id, the second starts.
  const started = Date.now();
  let lock = '';
  while (!lock.includes('"runId"')) {
    if (Date.now() - started > 30_000) throw new Error('the first run never took the lock');
    await new Promise((r) => setTimeout(r, 20));
    const file = readdirSync(locks).find((f) => f.endsWith('.lock'));
    lock = file ? readFileSync(join(locks, file), 'utf8') : '';
  }
  const second = await runCli(['import', 'stock', 'stock.csv', '--apply', '--yes'], env, b);
  gate.open();
  const done = await first;

  expect(done.code, done.stderr).toBe(0);
  const runId = done.json<{ runId: string }>().runId;
  expect(second.code).toBe(3);
  expect(second.stderr).toContain(`process ${process.pid}`);
  expect(second.stderr).toContain('mbulk import stock stock.csv --apply --yes --concurrency 1 --json');
  expect(second.stderr).toContain(`run ${runId}`);
  // The second wrote nothing and planned nothing: no run directory.
  expect(readdirSync(b)).toEqual(['stock.csv']);
  // Each delta reached the store once.
  for (const item of items) expect(s.store.getInventoryItem(item.itemId)?.quantity).toBe(item.quantity + 5);
  // The first run's PATCHes, one per item, and nothing else.
  expect(s.requestLog().filter((e) => e.method !== 'GET' && e.outcome === 'applied')).toHaveLength(8);
  // Released: a third run may write.
  const third = await runCli(['import', 'stock', 'stock.csv', '--apply', '--yes'], env, b);
  expect(third.code, third.stderr).toBe(0);
  for (const item of items) expect(s.store.getInventoryItem(item.itemId)?.quantity).toBe(item.quantity + 10);
});

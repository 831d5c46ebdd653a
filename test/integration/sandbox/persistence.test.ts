import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreSnapshot } from '../../../src/schema/index.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { startSandbox } from '../../../src/sandbox/server.js';
import { client } from './sandbox-client.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-sandbox-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('state file', () => {
  it('restarts from the persisted file with everything intact', async () => {
    const dataFile = join(dir, 'state', 'sandbox.json');
    const sb = await startSandbox({ dataFile, token: 't1' });
    const api = client(sb);
    const p = await api.post('/api/v2/products', {
      name: 'Kept',
      price: 100,
      variants: [
        { name: 'A', price: 100, inventory_quantity: 3 },
        { name: 'B', price: 100 },
      ],
      images: ['https://cdn.example.com/k.png'],
    });
    await api.patch(`/api/v2/inventory_items/${p.body.variants[1].inventory.item_id}`, { quantity: 8 });
    const c = await api.post(
      '/api/v2/customers',
      { name: 'C', phone: '1' },
      { 'idempotency-key': 'persist-1' },
    );
    await api.post('/api/v2/message_templates', { name: 'kept_tpl', body: 'Hi {{n}}', category: 'UTILITY' });
    await fetch(`${sb.url}/__sandbox/templates/kept_tpl/review`, {
      method: 'POST',
      body: JSON.stringify({ status: 'APPROVED' }),
    });
    await api.post('/api/v2/messages', { to: '1', template: 'kept_tpl', parameters: { n: 'x' } });
    const before = await api.get(`/api/v2/products/${p.body.id}`);
    await sb.close();

    const files = await readdir(join(dir, 'state'));
    expect(files).toEqual(['sandbox.json']); // no temp file left behind
    const raw = JSON.parse(await readFile(dataFile, 'utf8'));
    expect(StoreSnapshot.safeParse(raw).success).toBe(true);

    const again = await startSandbox({ dataFile, token: 't1' });
    try {
      const api2 = client(again);
      const after = await api2.get(`/api/v2/products/${p.body.id}`);
      expect(after.body).toEqual(before.body);
      // The idempotency table survived: the retry replays instead of creating a second customer.
      const retry = await api2.post(
        '/api/v2/customers',
        { name: 'C', phone: '1' },
        { 'idempotency-key': 'persist-1' },
      );
      expect(retry.body).toEqual(c.body);
      expect(await api2.all('/api/v2/customers')).toHaveLength(1);
      const tpl = await api2.all('/api/v2/message_templates');
      expect(tpl[0]).toMatchObject({ name: 'kept_tpl', status: 'APPROVED' });
      expect(again.store.messages()).toHaveLength(1);
      // New ids never collide with old ones; updated_at keeps increasing.
      const q = await api2.post('/api/v2/products', { name: 'New', price: 1 });
      expect(q.body.id).not.toBe(p.body.id);
      expect(q.body.created_at > before.body.updated_at).toBe(true);
      const products = await api2.all('/api/v2/products');
      expect(products.map((x) => x.name)).toEqual(['Kept', 'New']);
    } finally {
      await again.close();
    }
  });

  it('seeds from a snapshot file, then prefers the state file', async () => {
    const seedFile = join(dir, 'seed.json');
    await writeFile(
      seedFile,
      JSON.stringify(generateStore({ products: 4, customers: 2, orders: 3, seed: 5 })),
    );
    const dataFile = join(dir, 'sandbox.json');
    const sb = await startSandbox({ dataFile, seed: seedFile });
    expect(sb.store.counts()).toMatchObject({ products: 4, customers: 2, orders: 3 });
    await client(sb).post('/api/v2/customers', { name: 'Extra', phone: '9' });
    await sb.close();
    const again = await startSandbox({ dataFile, seed: seedFile });
    expect(again.store.counts().customers).toBe(3);
    await again.close();
  });

  it('saves shortly after a change, without waiting for close', async () => {
    const dataFile = join(dir, 'sandbox.json');
    const sb = await startSandbox({ dataFile, saveDelayMs: 10 });
    try {
      await client(sb).post('/api/v2/customers', { name: 'Soon', phone: '1' });
      await sb.flush();
      const raw = JSON.parse(await readFile(dataFile, 'utf8'));
      expect(raw.customers.map((c: { name: string }) => c.name)).toEqual(['Soon']);
    } finally {
      await sb.close();
    }
  });

  it('refuses a seed that is not a snapshot', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ format: 'nope' }));
    await expect(startSandbox({ seed: bad })).rejects.toThrow(/not a store snapshot/);
  });
});

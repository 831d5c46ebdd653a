import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Product } from '../../../src/schema/index.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { SANDBOX_IMAGE_BASE } from '../../../src/sandbox/generator.js';
import { client, envelope, type Json } from './sandbox-client.js';

let sb: RunningSandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await startSandbox();
  api = client(sb);
});
afterAll(async () => {
  await sb.close();
});

async function createTshirt(extra: Record<string, unknown> = {}): Promise<Json> {
  const r = await api.post('/api/v2/products', {
    name: 'T-shirt',
    price: 2500,
    variants: [
      { name: 'S', price: 2500, sku: 'TS-S', inventory_quantity: 5 },
      { name: 'M', price: 2500, sku: 'TS-M', inventory_quantity: 7 },
      { name: 'L', price: 2600, sku: 'TS-L', inventory_quantity: 0 },
    ],
    options: [{ type: 'OPTION_TEXT', text: 'Name to print' }],
    ...extra,
  });
  expect(r.status).toBe(200);
  return r.body;
}

async function inventoryIds(): Promise<string[]> {
  return (await api.all('/api/v2/inventory_items')).map((i: Json) => i.item_id as string);
}

describe('product create', () => {
  it('returns a full Product with defaults (original_price 0) and stock per variant', async () => {
    const p = await createTshirt();
    expect(Product.safeParse(p).success).toBe(true);
    expect(p.original_price).toBe(0);
    expect(p.status).toBe('VISIBLE');
    expect(p.inventory).toBeNull();
    expect(p.variants.map((v: Json) => v.inventory.quantity)).toEqual([5, 7, 0]);
    expect(p.variants[0].inventory).toMatchObject({
      object: 'inventory_item',
      item_type: 'variant',
      product_id: p.id,
      variant_id: p.variants[0].id,
      sku: 'TS-S',
    });
    expect(p.created_at).toBe(p.updated_at);
  });

  it('gives a product without variants its own inventory item', async () => {
    const r = await api.post('/api/v2/products', { name: 'Mug', price: 900, inventory_quantity: 3 });
    expect(r.body.inventory).toMatchObject({ item_type: 'product', quantity: 3, variant_id: null });
    expect(r.body.inventory_enabled).toBe(true);
    expect(r.body.soldout).toBe(false);
  });

  it('reports each validation failure with a dotted param', async () => {
    const r = await api.post('/api/v2/products', {
      name: 'Bad',
      price: 10,
      variants: [
        { name: 'ok', price: 1 },
        { name: 'neg', price: -1 },
      ],
    });
    expect(r.status).toBe(400);
    const e = envelope(r);
    expect(e).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_parameter',
      param: 'variants.1.price',
    });

    const missing = await api.post('/api/v2/products', { price: 10 });
    expect(envelope(missing)).toMatchObject({ code: 'missing_parameter', param: 'name' });

    const link = await api.post('/api/v2/products', { name: 'x', price: 1, links: ['ftp://a'] });
    expect(envelope(link).param).toBe('links.0');
  });
});

describe('product update: replace-list rules', () => {
  it('deletes a variant left out of `variants`, together with its inventory item', async () => {
    const p = await createTshirt();
    const [s, m, l] = p.variants;
    const r = await api.patch(`/api/v2/products/${p.id}`, {
      variants: [
        { id: l.id, name: 'L', price: 2700 },
        { id: s.id, name: 'S', price: 2500 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.variants.map((v: Json) => v.id)).toEqual([l.id, s.id]);
    expect(r.body.variants[0].price).toBe(2700);
    // Kept variants keep their stock and their item id.
    expect(r.body.variants[1].inventory).toMatchObject({ item_id: s.inventory.item_id, quantity: 5 });
    // The dropped variant's stock is gone.
    const gone = await api.patch(`/api/v2/inventory_items/${m.inventory.item_id}`, { quantity: 1 });
    expect(gone.status).toBe(404);
    expect(await inventoryIds()).not.toContain(m.inventory.item_id);
    // And the variant id cannot be reused.
    const reuse = await api.patch(`/api/v2/products/${p.id}`, {
      variants: [{ id: m.id, name: 'M', price: 1 }],
    });
    expect(envelope(reuse)).toMatchObject({ param: 'variants.0.id' });
  });

  it('leaves variants untouched when `variants` is omitted', async () => {
    const p = await createTshirt();
    const r = await api.patch(`/api/v2/products/${p.id}`, { name: 'Renamed' });
    expect(r.body.name).toBe('Renamed');
    const strip = (v: Json) => ({ ...v, inventory: { ...v.inventory, item_name: null, updated_at: null } });
    expect(r.body.variants.map(strip)).toEqual(p.variants.map(strip));
    // The items follow the product's name ("Product - Variant").
    expect(r.body.variants[0].inventory.item_name).toBe(`Renamed - ${p.variants[0].name}`);
  });

  it('removes every variant with `[]` and gives the product its own stock item', async () => {
    const p = await createTshirt();
    const r = await api.patch(`/api/v2/products/${p.id}`, { variants: [], inventory_quantity: 4 });
    expect(r.body.variants).toEqual([]);
    expect(r.body.inventory).toMatchObject({ item_type: 'product', quantity: 4 });
    const ids = await inventoryIds();
    for (const v of p.variants) expect(ids).not.toContain(v.inventory.item_id);
    expect(ids).toContain(r.body.inventory.item_id);
  });

  it('refuses a variant id of another product (400 variants.N.id) and changes nothing', async () => {
    const a = await createTshirt();
    const b = await createTshirt();
    const r = await api.patch(`/api/v2/products/${a.id}`, {
      name: 'should not apply',
      variants: [
        { id: a.variants[0].id, name: 'S', price: 1 },
        { id: b.variants[0].id, name: 'S', price: 1 },
      ],
    });
    expect(r.status).toBe(400);
    expect(envelope(r)).toMatchObject({ type: 'invalid_request_error', param: 'variants.1.id' });
    const after = await api.get(`/api/v2/products/${a.id}`);
    expect(after.body).toEqual(a);
  });

  it('creates variants from entries without id and sets stock from inventory_quantity', async () => {
    const p = await createTshirt();
    const r = await api.patch(`/api/v2/products/${p.id}`, {
      variants: [
        { id: p.variants[0].id, name: 'S', price: 2500, inventory_quantity: 11 },
        { name: 'XL', price: 2800, inventory_quantity: 2 },
      ],
    });
    expect(r.body.variants).toHaveLength(2);
    expect(r.body.variants[0].inventory.quantity).toBe(11);
    expect(r.body.variants[1]).toMatchObject({ name: 'XL', original_price: 0 });
    expect(r.body.variants[1].inventory.quantity).toBe(2);
  });

  it('replaces options by id and ignores `type` on entries with an id', async () => {
    const p = await createTshirt();
    const opt = p.options[0];
    const r = await api.patch(`/api/v2/products/${p.id}`, {
      options: [
        { type: 'OPTION_SELECTION', text: 'Second', settings: { options: [{ text: 'a' }] } },
        { id: opt.id, type: 'OPTION_NUMBER', text: 'Renamed', required: true },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.options[1]).toMatchObject({
      id: opt.id,
      type: 'OPTION_TEXT',
      text: 'Renamed',
      required: true,
    });
    expect(r.body.options[0]).toMatchObject({ type: 'OPTION_SELECTION', text: 'Second' });
    const noType = await api.patch(`/api/v2/products/${p.id}`, { options: [{ text: 'needs a type' }] });
    expect(envelope(noType).param).toBe('options.0.type');
    const other = await createTshirt();
    const foreign = await api.patch(`/api/v2/products/${p.id}`, {
      options: [{ id: other.options[0].id, text: 'x' }],
    });
    expect(envelope(foreign).param).toBe('options.0.id');
    const cleared = await api.patch(`/api/v2/products/${p.id}`, { options: [] });
    expect(cleared.body.options).toEqual([]);
  });

  it('re-hosts images, keeps its own URLs, and fails the whole request on an unfetchable URL', async () => {
    const p = await createTshirt({
      images: ['https://cdn.example.com/a.jpg', 'http://cdn.example.com/b.png'],
    });
    expect(p.images).toHaveLength(2);
    // The storage URL does not hold the port of this run: it names the same image after a restart.
    for (const url of p.images) expect(url.startsWith(SANDBOX_IMAGE_BASE)).toBe(true);
    expect(p.images[0]).toMatch(/\.jpg$/);
    const served = `${sb.url}${new URL(p.images[0] as string).pathname}`;
    const img = await fetch(served);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');

    // Sending back the returned URLs reorders without re-fetching.
    const reordered = await api.patch(`/api/v2/products/${p.id}`, { images: [p.images[1], p.images[0]] });
    expect(reordered.body.images).toEqual([p.images[1], p.images[0]]);

    const bad = await api.patch(`/api/v2/products/${p.id}`, {
      name: 'must not apply',
      images: [p.images[0], 'https://img.example.invalid/x.jpg'],
    });
    expect(bad.status).toBe(400);
    expect(envelope(bad)).toMatchObject({ type: 'invalid_request_error', param: 'images' });
    const after = await api.get(`/api/v2/products/${p.id}`);
    expect(after.body.name).toBe('T-shirt');
    expect(after.body.images).toEqual([p.images[1], p.images[0]]);

    const eleven = Array.from({ length: 11 }, (_, i) => `https://cdn.example.com/${i}.png`);
    const tooMany = await api.patch(`/api/v2/products/${p.id}`, { images: eleven });
    expect(envelope(tooMany).param).toBe('images');
    const none = await api.patch(`/api/v2/products/${p.id}`, { images: [] });
    expect(none.body.images).toEqual([]);
  });

  it('derives soldout from stock and advances updated_at on every change', async () => {
    const p = await createTshirt({ inventory_enabled: true });
    expect(p.soldout).toBe(false);
    let last = p.updated_at;
    for (const v of p.variants) {
      const r = await api.patch(`/api/v2/inventory_items/${v.inventory.item_id}`, { quantity: 0 });
      expect(r.status).toBe(200);
    }
    const sold = await api.get(`/api/v2/products/${p.id}`);
    expect(sold.body.soldout).toBe(true);
    expect(sold.body.updated_at > last).toBe(true);
    last = sold.body.updated_at;
    // Several changes in a row: strictly increasing, created_at fixed.
    for (let i = 0; i < 5; i++) {
      const r = await api.patch(`/api/v2/products/${p.id}`, { price: 3000 + i });
      expect(r.body.updated_at > last).toBe(true);
      expect(r.body.created_at).toBe(p.created_at);
      last = r.body.updated_at;
    }
    const restock = await api.patch(`/api/v2/products/${p.id}`, {
      variants: [{ id: p.variants[0].id, name: 'S', price: 1, inventory_quantity: 1 }],
    });
    expect(restock.body.soldout).toBe(false);
  });

  it('keeps original_price at 0 by default and lets 0 clear it', async () => {
    const p = await createTshirt({ original_price: 3000 });
    expect(p.original_price).toBe(3000);
    const r = await api.patch(`/api/v2/products/${p.id}`, { original_price: 0 });
    expect(r.body.original_price).toBe(0);
  });
});

describe('product get, delete and list filter', () => {
  it('deletes permanently: 404 afterwards, stock gone', async () => {
    const p = await createTshirt();
    const r = await api.del(`/api/v2/products/${p.id}`);
    expect(r.body).toEqual({ id: p.id, object: 'product', deleted: true });
    const get = await api.get(`/api/v2/products/${p.id}`);
    expect(get.status).toBe(404);
    expect(envelope(get)).toMatchObject({ type: 'not_found_error', code: 'resource_missing' });
    expect((await api.del(`/api/v2/products/${p.id}`)).status).toBe(404);
    expect((await api.patch(`/api/v2/products/${p.id}`, { name: 'x' })).status).toBe(404);
    const ids = await inventoryIds();
    for (const v of p.variants) expect(ids).not.toContain(v.inventory.item_id);
  });

  it('filters the list by status', async () => {
    const hidden = await createTshirt({ status: 'HIDDEN' });
    const h = await api.all('/api/v2/products?status=HIDDEN');
    expect(h.map((p: Json) => p.id)).toContain(hidden.id);
    expect(h.every((p: Json) => p.status === 'HIDDEN')).toBe(true);
    const v = await api.all('/api/v2/products?status=VISIBLE');
    expect(v.map((p: Json) => p.id)).not.toContain(hidden.id);
    expect(envelope(await api.get('/api/v2/products?status=GONE')).param).toBe('status');
  });
});

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateStore, generateStoreStreamed } from '../../../src/sandbox/generator.js';
import { readStateFile, StateSaver } from '../../../src/sandbox/persistence.js';
import { createSandboxStore } from '../../../src/sandbox/server.js';
import { SandboxStore } from '../../../src/sandbox/store.js';
import { ProductLoad } from '../../../src/sandbox/tables/product-load.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-compact-products-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const AT = '2026-11-28T00:00:00.000Z';
const text = (store: SandboxStore): string => store.stateChunks(AT).join('');

/** Every page of a list endpoint, as the bodies it answered. */
function pages(list: (q: URLSearchParams) => string, extra = ''): string[] {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const body = list(new URLSearchParams(`limit=7${extra}${cursor === null ? '' : `&cursor=${cursor}`}`));
    out.push(body);
    cursor = (JSON.parse(body) as { next_cursor: string | null }).next_cursor;
  } while (cursor !== null);
  return out;
}

/** Changes that move items out of creation order, add and remove variants, options and products. */
function churn(store: SandboxStore): void {
  const products = store.toSnapshot().products;
  const [a, b, c] = products;
  if (a === undefined || b === undefined || c === undefined) throw new Error('too few products');
  store.updateProduct(a.id, {
    name: 'Renamed "quoted" \\ \u00fc',
    variants: [
      ...a.variants.slice(1).map((v) => ({ id: v.id, name: v.name, price: v.price })),
      { name: 'New', price: 100, inventory_quantity: 4 },
    ],
    options: [{ type: 'OPTION_TEXT', text: 'Gift note' }],
  });
  store.updateProduct(b.id, { variants: [], inventory_quantity: 9, status: 'HIDDEN' });
  store.deleteProduct(c.id);
  const item = products[5]?.variants[0]?.inventory?.item_id ?? products[5]?.inventory?.item_id;
  store.updateInventoryItem(item as string, { delta_quantity: 3 });
  const items = products.slice(6, 9).flatMap((p) => p.variants.map((v) => v.inventory?.item_id as string));
  store.batchUpdateInventory(items.map((item_id, i) => ({ item_id, quantity: i })));
  store.createProduct({
    name: 'Fresh',
    price: 250,
    variants: [{ name: 'One', price: 250, inventory_quantity: 1 }],
  });
}

describe('the sandbox keeps each product as its JSON (a compact model for a million SKUs)', () => {
  it('a store generated product by product is the store generateStore() makes, orders included', async () => {
    const options = { products: 60, customers: 10, orders: 40, seed: 9 };
    const streamed = await createSandboxStore({ generate: options });
    const whole = new SandboxStore({ state: generateStore(options) });
    expect(text(streamed)).toBe(text(whole));
    // Streamed, the generator hands the products over and keeps none.
    const load = new ProductLoad();
    const rest = generateStoreStreamed({ ...options, orders: 0 }, (p) => load.add(p));
    expect(rest.products).toEqual([]);
    expect(load.slots).toHaveLength(60);
  });

  it('answers the same pages and saves the same state after changes, and again once saved and read back', async () => {
    const store = new SandboxStore({
      state: generateStore({ products: 40, customers: 0, orders: 0, seed: 4 }),
    });
    churn(store);
    const before = {
      products: pages((q) => store.listProductsJson(q)),
      hidden: pages((q) => store.listProductsJson(q), '&status=HIDDEN'),
      items: pages((q) => store.listInventoryItemsJson(q)),
      recent: pages((q) => store.listInventoryItemsJson(q), '&updated_after=2026-01-01T00:00:00Z'),
    };
    // The changed items come last in creation order, and the updated_after filter finds them.
    expect(before.recent.join('')).toContain('"item_name":"Renamed');
    const file = path.join(dir, 'state.json');
    const saver = new StateSaver(store, file, 0);
    saver.schedule();
    await saver.flush();
    const load = new ProductLoad();
    const state = await readStateFile(file, load);
    expect(state?.products).toEqual([]);
    const again = new SandboxStore({ state: state as NonNullable<typeof state>, productLoad: load });
    expect(text(again)).toBe(text(store));
    expect({
      products: pages((q) => again.listProductsJson(q)),
      hidden: pages((q) => again.listProductsJson(q), '&status=HIDDEN'),
      items: pages((q) => again.listInventoryItemsJson(q)),
      recent: pages((q) => again.listInventoryItemsJson(q), '&updated_after=2026-01-01T00:00:00Z'),
    }).toEqual(before);
    // And the same state as the store made from the state as objects.
    const read = await readStateFile(file);
    expect(text(new SandboxStore({ state: read as NonNullable<typeof read> }))).toBe(text(store));
  });

  it('saves only the item numbers a load cannot work out, and still reads files that hold them all', () => {
    const store = new SandboxStore({
      state: generateStore({ products: 30, customers: 0, orders: 0, seed: 6 }),
    });
    expect(store.toState().sandbox?.item_seqs).toEqual({});
    churn(store);
    const state = store.toState();
    const saved = state.sandbox?.item_seqs ?? {};
    expect(Object.keys(saved).length).toBeGreaterThan(0);
    // A state file of the format before: every item's number written out.
    const all: Record<string, number> = { ...saved };
    state.products.forEach((p, i) => {
      let prev = state.sandbox?.seqs.products[i] as number;
      const ids =
        p.variants.length === 0 ? [p.inventory?.item_id] : p.variants.map((v) => v.inventory?.item_id);
      for (const id of ids as string[]) {
        all[id] ??= prev + 1;
        prev = all[id];
      }
    });
    expect(Object.keys(all).length).toBe(
      store.counts().variants + state.products.filter((p) => p.variants.length === 0).length,
    );
    const old = {
      ...state,
      sandbox: { ...(state.sandbox as NonNullable<typeof state.sandbox>), item_seqs: all },
    };
    const reloaded = new SandboxStore({ state: old });
    expect(text(reloaded)).toBe(text(store));
    expect(pages((q) => reloaded.listInventoryItemsJson(q))).toEqual(
      pages((q) => store.listInventoryItemsJson(q)),
    );
  });

  it('never mints an id a loaded product already has (ids in the sandbox own format included)', () => {
    const store = new SandboxStore();
    const first = store.createProduct({
      name: 'A',
      price: 100,
      variants: [{ name: 'x', price: 100 }],
      options: [{ type: 'OPTION_TEXT', text: 'note' }],
    });
    const state = store.toState();
    // A seed without the sandbox's counters: the id counter starts again from 0.
    const { sandbox: _sandbox, ...seed } = state;
    const reloaded = new SandboxStore({ state: seed });
    const second = reloaded.createProduct({
      name: 'B',
      price: 100,
      variants: [{ name: 'y', price: 100 }],
      options: [{ type: 'OPTION_TEXT', text: 'note' }],
    });
    const ids = (p: typeof first) => [
      p.id,
      ...p.variants.map((v) => v.id),
      ...p.variants.map((v) => v.inventory?.item_id),
      ...p.options.map((o) => o.id),
    ];
    for (const id of ids(second)) expect(ids(first)).not.toContain(id);
    expect(reloaded.counts()).toMatchObject({ products: 2, variants: 2 });
  });
});

import { describe, expect, it } from 'vitest';
import { StoreSnapshot } from '../../../src/schema/index.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { SandboxStore } from '../../../src/sandbox/store.js';

describe('SandboxStore state', () => {
  it('serves a loaded snapshot unchanged and round-trips its own state file', () => {
    const snapshot = generateStore({ products: 40, customers: 10, orders: 20, seed: 11 });
    const store = new SandboxStore({ state: snapshot });
    const state = store.toState();
    expect(StoreSnapshot.safeParse(state).success).toBe(true);
    expect(state.products).toEqual(snapshot.products);
    expect(state.customers).toEqual(snapshot.customers);
    expect(state.orders).toEqual(snapshot.orders);

    store.createCustomer({ name: 'After', phone: '1' });
    store.deleteProduct(snapshot.products[0]?.id as string);
    const reloaded = new SandboxStore({ state: JSON.parse(store.stateChunks().join('')) });
    expect(reloaded.toState().products).toEqual(store.toState().products);
    expect(reloaded.counts()).toEqual(store.counts());
    // Counters continue: a new id never collides, and list order is kept.
    const c = reloaded.createCustomer({ name: 'Later', phone: '2' });
    expect(store.toState().customers.map((x) => x.id)).not.toContain(c.id);
  });

  it('validates before changing anything (a failing update leaves no trace)', () => {
    const store = new SandboxStore();
    const p = store.createProduct({ name: 'A', price: 1, variants: [{ name: 'v', price: 1 }] });
    const before = store.getProduct(p.id);
    expect(() =>
      store.updateProduct(p.id, {
        name: 'B',
        variants: [{ name: 'w', price: 2 }],
        images: ['https://x.invalid/a.png'],
      }),
    ).toThrow(/image could not be fetched/);
    expect(store.getProduct(p.id)).toEqual(before);
  });
});

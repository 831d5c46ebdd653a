import { describe, expect, it } from 'vitest';
import type { MerchantClient } from '../../../../src/api/merchant-client.js';
import { LiveCatalogRead, sortAgainstSheet } from '../../../../src/jobs/products/live-catalog-read.js';
import { mapProductRows } from '../../../../src/mapping/product-sheet-mapper.js';
import { indexLiveCatalog } from '../../../../src/plan/live-catalog.js';
import { planProducts, type PlanProductsOptions } from '../../../../src/plan/plan-products.js';
import type { Product } from '../../../../src/schema/product.js';
import type { CellValue } from '../../../../src/sheets/sheet-row.js';
import { sheet } from '../../mapping/sheet-fixture.js';
import { liveProduct, variant } from '../../plan/live-fixture.js';

/** p1…p6, each with two variants; p4 has no reference_id. */
function store(): Product[] {
  return ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map((id) =>
    liveProduct(id, {
      ...(id === 'p4' ? { reference_id: null } : {}),
      variants: [
        variant(id, `${id}a`, { name: 'Small', sku: `${id}-S`, price: 1000 }),
        variant(id, `${id}b`, { name: 'Large', sku: `${id}-L`, price: 1200 }),
      ],
    }),
  );
}

const HEADER = ['reference_id', 'sku', 'name', 'price', 'variant_sku', 'variant_name', 'variant_price'];
const rows = (ref: string, sku: string, id: string, price: string): CellValue[][] => [
  [ref, sku, `Product ${id}`, price, `${id}-S`, 'Small', '10.00'],
  [ref, sku, `Product ${id}`, price, `${id}-L`, 'Large', '12.00'],
];
/**
 * p1 unchanged (by reference_id), p2 repriced, p3 left out, p4 unchanged found by its sku, p5
 * and p6 both with p6's sku (twice on the sheet: both invalid).
 */
const DATA: CellValue[][] = [
  ...rows('REF-p1', 'P-p1', 'p1', '19.90'),
  ...rows('REF-p2', 'P-p2', 'p2', '21.00'),
  ...rows('', 'P-p4', 'p4', '19.90'),
  ...rows('REF-p5', 'P-p6', 'p5', '19.90'),
  ...rows('REF-p6', 'P-p6', 'p6', '19.90'),
];

function mapping() {
  return mapProductRows(sheet('products', HEADER, DATA), { decimals: 2 });
}

/** A client listing these products; with `gate`, the listing waits before product `gate.at` until `gate.open` settles. */
function fakeClient(
  products: Product[],
  gate?: { at: number; reached: () => void; open: Promise<void> },
): MerchantClient {
  const list = () =>
    (async function* () {
      for (const [i, p] of products.entries()) {
        if (i === gate?.at) {
          gate.reached();
          await gate.open;
        }
        await Promise.resolve();
        yield structuredClone(p);
      }
    })();
  return { products: { list, listEvery: list } } as unknown as MerchantClient;
}

async function planned(missing: 'ignore' | 'hide', sortEarly: boolean) {
  const live = store();
  const m = mapping();
  const options: PlanProductsOptions = {
    decimals: 2,
    missing,
    columnRefs: m.columnRefs,
    unkeyedRows: m.unkeyedRows,
    unkeyedOptionRows: m.unkeyedOptionRows,
  };
  const read = new LiveCatalogRead(fakeClient(live), {});
  if (!sortEarly) await read.complete();
  read.sortBy(sortAgainstSheet(m.products, options));
  const catalog = await read.complete();
  const plan = planProducts(m.products, catalog, options);
  const whole = mapping();
  const expected = planProducts(whole.products, indexLiveCatalog(live), {
    ...options,
    columnRefs: whole.columnRefs,
  });
  const written = plan.entries.flatMap((e) =>
    e.action === 'update' || e.action === 'hide' ? [e.productId as string] : [],
  );
  return { plan, expected, catalog, before: await read.takeBodies(written), live };
}

describe('the live catalog sorted against the sheet', () => {
  for (const sortEarly of [false, true]) {
    it(`plans as the whole catalog does, keeping compact only what the plan leaves unchanged (sorted ${sortEarly ? 'while' : 'after'} reading)`, async () => {
      const { plan, expected, catalog, before, live } = await planned('ignore', sortEarly);
      expect(plan).toEqual(expected);
      expect(plan.entries.map((e) => [e.action, e.productId])).toEqual([
        ['noop', 'p1'],
        ['update', 'p2'],
        ['noop', 'p4'],
        ['invalid', 'p5'],
        ['invalid', 'p6'],
      ]);
      const compact = catalog.products.filter((p) => p.compact !== undefined).map((p) => p.id);
      // p1 is named by its reference_id alone and plans unchanged alone; p3 is named by nobody; p4
      // is found by its sku (the whole catalog decides), p5 and p6 are invalid.
      expect(compact).toEqual(['p1', 'p3']);
      expect(catalog.byId.get('p1')?.variants).toEqual([]);
      expect(before).toEqual({ p2: live[1] });
    });
  }

  it('indexes a product the listing returns twice once, and plans as the catalog without the repeat', async () => {
    const live = store();
    const m = mapping();
    const options: PlanProductsOptions = {
      decimals: 2,
      missing: 'ignore',
      columnRefs: m.columnRefs,
      unkeyedRows: m.unkeyedRows,
      unkeyedOptionRows: m.unkeyedOptionRows,
    };
    // p1 (kept compact: the sheet leaves it unchanged) comes again at the end of the listing.
    const read = new LiveCatalogRead(fakeClient([...live, live[0] as Product]), {});
    read.sortBy(sortAgainstSheet(m.products, options));
    const catalog = await read.complete();
    expect(catalog.products.map((p) => p.id)).toEqual(live.map((p) => p.id));
    const whole = mapping();
    expect(planProducts(m.products, catalog, options)).toEqual(
      planProducts(whole.products, indexLiveCatalog(live), { ...options, columnRefs: whole.columnRefs }),
    );
  });

  it('sorted with a page and a half read, indexes the products in the order they were read', async () => {
    // 150 products the sheet leaves out come first: one deflated page waiting, half a page on hand.
    const live = [
      ...Array.from({ length: 150 }, (_, i) => liveProduct(`q${String(i).padStart(3, '0')}`)),
      ...store(),
    ];
    const m = mapping();
    const options: PlanProductsOptions = {
      decimals: 2,
      missing: 'hide',
      columnRefs: m.columnRefs,
      unkeyedRows: m.unkeyedRows,
      unkeyedOptionRows: m.unkeyedOptionRows,
    };
    let reached = () => {};
    const at = new Promise<void>((resolve) => (reached = resolve));
    let open = () => {};
    const read = new LiveCatalogRead(
      fakeClient(live, { at: 150, reached: () => reached(), open: new Promise<void>((r) => (open = r)) }),
      {},
    );
    await at;
    read.sortBy(sortAgainstSheet(m.products, options));
    open();
    const catalog = await read.complete();
    expect(catalog.products.map((p) => p.id)).toEqual(live.map((p) => p.id));
    const plan = planProducts(m.products, catalog, options);
    const whole = mapping();
    expect(plan).toEqual(
      planProducts(whole.products, indexLiveCatalog(live), { ...options, columnRefs: whole.columnRefs }),
    );
    expect(plan.summary.hide).toBe(151);
  });

  it('keeps the bodies of products --missing hide hides, and plans them as the whole catalog does', async () => {
    const { plan, expected, before, live } = await planned('hide', false);
    expect(plan).toEqual(expected);
    expect(plan.entries.filter((e) => e.action === 'hide').map((e) => e.productId)).toEqual(['p3']);
    expect(before).toEqual({ p2: live[1], p3: live[2] });
  });
});

describe('LiveCatalogRead.letReadGo', () => {
  it('gives the read two turns of the event loop while it goes, nothing once it is over', async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const read = new LiveCatalogRead(
      fakeClient(store(), { at: 1, reached: () => undefined, open: gate }),
      {},
    );
    const turn = read.letReadGo();
    expect(turn).toBeInstanceOf(Promise);
    await turn;
    open();
    await read.complete();
    expect(read.letReadGo()).toBeUndefined();
  });
});

describe('LiveCatalogRead.sortBy with pages waiting', () => {
  it('indexes them a page at a time while the read goes, in the order they were read', async () => {
    const live = Array.from({ length: 350 }, (_, i) => liveProduct(`q${i}`, { reference_id: `Q-${i}` }));
    let reached: () => void = () => undefined;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const read = new LiveCatalogRead(fakeClient(live, { at: 320, reached, open: gate }), {});
    await atGate;
    read.sortBy(() => ({ kind: 'compact', body: false }));
    // Three pages waited: the first is indexed at once, the others after turns of the event loop
    // (all three at once held the read's pages back for as long as they took).
    expect(read.catalog.products).toHaveLength(100);
    open();
    const catalog = await read.complete();
    expect(catalog.products.map((p) => p.id)).toEqual(live.map((p) => p.id));
  });
});

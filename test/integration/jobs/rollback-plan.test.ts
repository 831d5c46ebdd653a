import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BackupEntry } from '../../../src/apply/backup.js';
import { decideRollback, type SourceWrites } from '../../../src/plan/rollback-plan.js';
import { productRestore } from '../../../src/plan/rollback-product.js';
import type { Product } from '../../../src/schema/product.js';
import { StoreSnapshot } from '../../../src/schema/snapshot.js';

// Pure decisions of the rollback plan (no sandbox needed).

const store = StoreSnapshot.parse(
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../samples/store.json'), 'utf8')),
);
const withVariants =
  store.products.find((p) => p.variants.length >= 3 && p.options.length > 0) ?? store.products[0]!;

function writes(partial: Partial<SourceWrites> = {}): SourceWrites {
  return { items: new Map(), customers: new Map(), products: new Map(), notReversible: [], ...partial };
}

function entry(type: string, id: string, before: unknown): BackupEntry {
  return { type, id, before, t: '2026-01-01T00:00:00.000Z' };
}

describe('rollback decisions', () => {
  it('stock: restores what the run wrote, leaves failed and untouched items, flags drift', () => {
    const backup = [
      entry('inventory_item', 'a', { quantity: 5, sku: 'A' }),
      entry('inventory_item', 'b', { quantity: 5, sku: 'B' }),
      entry('inventory_item', 'c', { quantity: 5, sku: 'C' }),
      entry('inventory_item', 'd', { quantity: 5, sku: 'D' }),
      entry('inventory_item', 'gone', { quantity: 5, sku: 'G' }),
    ];
    const live = {
      items: new Map([
        ['a', { quantity: 9, sku: 'A', name: 'A' }],
        ['b', { quantity: 5, sku: 'B', name: 'B' }],
        ['c', { quantity: 3, sku: 'C', name: 'C' }],
        ['d', { quantity: 12, sku: 'D', name: 'D' }],
      ]),
    };
    const d = decideRollback(
      backup,
      writes({
        items: new Map([
          ['a', { written: 9 }],
          ['b', { written: 8 }],
          ['c', { failed: true, planned: 8 }],
          ['d', { written: 10 }],
        ]),
      }),
      live,
      { deleteCreated: false },
    );
    expect(d.restores).toEqual([
      {
        type: 'stock',
        key: 'stock:0',
        items: [
          { itemId: 'a', sku: 'A', restore: 5, current: 9 },
          { itemId: 'd', sku: 'D', restore: 5, current: 12 },
        ],
      },
    ]);
    expect(d.drifted.map((x) => x.id)).toEqual(['d']);
    expect(d.leftAlone.map((x) => x.id)).toEqual(['b', 'c']);
    expect(d.notReversible.map((x) => [x.id, x.reason])).toEqual([['gone', 'no longer exists']]);
  });

  it('products: hide is undone by restoring the status only; a deleted product is not reversible', () => {
    const p = store.products[0]!;
    const hidden: Product = { ...p, status: 'HIDDEN', updated_at: '2027-01-01T00:00:00.000Z' };
    const d = decideRollback(
      [entry('product', p.id, p), entry('product', 'prod_x', { ...p, id: 'prod_x', name: 'Gone' })],
      writes({
        products: new Map([
          [p.id, { state: 'done', action: 'update', body: { status: 'HIDDEN' } }],
          ['prod_x', { state: 'done', action: 'delete' }],
        ]),
      }),
      { products: new Map([[p.id, hidden]]) },
      { deleteCreated: false },
    );
    expect(d.drifted).toEqual([]);
    expect(d.restores).toHaveLength(1);
    expect(d.restores[0]).toMatchObject({ type: 'product', productId: p.id, body: { status: p.status } });
    expect(d.notReversible).toEqual([
      expect.objectContaining({
        id: 'prod_x',
        reason: expect.stringMatching(/cannot be restored with its id/),
      }),
    ]);
  });

  it('variants created by the run are kept by default and dropped with deleteCreated; list order restored', () => {
    const before = withVariants;
    const added = { ...before.variants[0]!, id: 'var_new', name: 'Added', sku: 'ADDED' };
    const live: Product = {
      ...before,
      variants: [before.variants[1]!, before.variants[0]!, ...before.variants.slice(2), added],
    };
    const kept = productRestore(before, live, { fields: ['variants'] });
    expect(kept.body.variants?.map((v) => v.id)).toEqual([...before.variants.map((v) => v.id), 'var_new']);
    expect(kept.notes.join('\n')).toMatch(/var_new \(Added\) was created by the run: kept/);
    const dropped = productRestore(before, live, { fields: ['variants'], deleteCreated: true });
    expect(dropped.body.variants?.map((v) => v.id)).toEqual(before.variants.map((v) => v.id));
    // Fields the run did not write are not sent back.
    expect(Object.keys(dropped.body)).toEqual(['variants']);
    // Nothing differs: nothing to send.
    expect(productRestore(before, before).body).toEqual({});
  });

  it('templates and messages the run did are carried through as not reversible; unknown types too', () => {
    const d = decideRollback(
      [entry('gizmo', 'g1', {})],
      writes({
        notReversible: [
          {
            type: 'message',
            id: 'msg_1',
            label: '6012',
            reason: 'sent by the run: messages cannot be unsent',
          },
        ],
      }),
      {},
      { deleteCreated: false },
    );
    expect(d.notReversible.map((n) => n.type)).toEqual(['message', 'gizmo']);
    expect(d.restores).toEqual([]);
  });
});

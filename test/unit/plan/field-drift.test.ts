import { describe, expect, it } from 'vitest';
import { describeDriftedList } from '../../../src/plan/drifted-entity.js';
import { driftedFields, liveValueAt } from '../../../src/plan/field-drift.js';
import type { LiveProduct } from '../../../src/plan/live-catalog.js';
import type { FieldChange } from '../../../src/plan/product-plan.js';

const live = {
  id: 'p_1',
  updated_at: '2026-11-26T01:00:00Z',
  name: 'Kaya Toast (new)',
  sku: ' KBT ',
  status: 'VISIBLE',
  price: 990,
  original_price: 0,
  tags: ['a', 'b'],
  images: [],
  options: [{ id: 'o_1', type: 'TEXT', text: 'Note', required: true, settings: {} }],
  variants: [
    { id: 'v_1', name: 'Small', sku: 'KBT-S', price: 500, inventory_quantity: 7 },
    { id: 'v_2', name: 'Large', sku: null, price: 800, inventory_quantity: 3 },
  ],
} as unknown as LiveProduct;

describe('field drift of a planned product', () => {
  it('reads the live value at a plan path: fields, variants by sku or name, options by text', () => {
    expect(liveValueAt(live, 'price')).toBe(990);
    expect(liveValueAt(live, 'sku')).toBe('KBT');
    expect(liveValueAt(live, 'tags')).toEqual(['a', 'b']);
    expect(liveValueAt(live, 'variants[KBT-S].price')).toBe(500);
    expect(liveValueAt(live, 'variants[Large].inventory_quantity')).toBe(3);
    expect(liveValueAt(live, 'options[Note].required')).toBe(true);
    expect(liveValueAt(live, 'variants[KBT-S]')).toBeUndefined();
    expect(liveValueAt(live, 'variants[gone].price')).toBeUndefined();
    expect(liveValueAt(live, 'no_such_field')).toBeUndefined();
  });

  it('lists the planned fields that moved since planning, money in currency units, and none that did not', () => {
    const changes: FieldChange[] = [
      { path: 'price', before: 850, after: 920, money: true },
      { path: 'name', before: 'Kaya Toast', after: 'Kaya Butter Toast' },
      { path: 'status', before: 'VISIBLE', after: 'HIDDEN' },
      { path: 'variants[KBT-S].price', before: 450, after: 480, money: true },
      { path: 'variants[Large].inventory_quantity', before: 3, after: 10 },
      { path: 'variants[XL]', before: null, after: null, note: 'added' },
    ];
    const fields = driftedFields(changes, live, 2);
    expect(fields).toEqual([
      { field: 'price', planned: '9.20', live: '9.90', atPlanning: '8.50' },
      { field: 'name', planned: 'Kaya Butter Toast', live: 'Kaya Toast (new)', atPlanning: 'Kaya Toast' },
      { field: 'variants[KBT-S].price', planned: '4.80', live: '5.00', atPlanning: '4.50' },
    ]);
  });

  it('the refusal text: each drifted entity, then one line per field with the planned and live values', () => {
    const lines = describeDriftedList(
      [
        {
          type: 'product',
          id: 'p_1',
          label: 'KBT',
          reason: 'changed in the store after planning',
          fields: [{ field: 'price', planned: '9.20', live: '9.90', atPlanning: '8.50' }],
        },
        { type: 'customer', id: 'c_1', label: 'row 2 Ann', reason: 'no longer exists' },
        { type: 'customer', id: 'c_2', label: 'row 3 Bo', reason: 'no longer exists' },
      ],
      2,
    );
    expect(lines).toEqual([
      'product p_1 (KBT): changed in the store after planning',
      '    price: planned 9.20 · live 9.90 (8.50 when planned)',
      'customer c_1 (row 2 Ann): no longer exists',
      '… and 1 more',
    ]);
  });
});

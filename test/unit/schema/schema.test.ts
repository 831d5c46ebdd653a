import { describe, expect, it } from 'vitest';
import {
  CustomerCreate,
  InventoryBatch,
  InventoryUpdate,
  ProductCreate,
  ProductUpdate,
  TemplateCreate,
  templateVariables,
} from '../../../src/index.js';
import { currencyDecimals } from '../../../src/schema/currency.js';

function paths(result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }): string[] {
  return (result.error?.issues ?? []).map((i) => i.path.join('.'));
}

describe('inventory update', () => {
  it('accepts exactly one of quantity / delta_quantity', () => {
    expect(InventoryUpdate.safeParse({ quantity: 0 }).success).toBe(true);
    expect(InventoryUpdate.safeParse({ delta_quantity: -3 }).success).toBe(true);
    expect(InventoryUpdate.safeParse({}).success).toBe(false);
    expect(InventoryUpdate.safeParse({ quantity: 1, delta_quantity: 1 }).success).toBe(false);
  });
  it('rejects negative quantity, fractions and extra properties', () => {
    expect(paths(InventoryUpdate.safeParse({ quantity: -1 }))).toEqual(['quantity']);
    expect(InventoryUpdate.safeParse({ quantity: 1.5 }).success).toBe(false);
    expect(InventoryUpdate.safeParse({ quantity: 1, sku: 'x' }).success).toBe(false);
  });
  it('validates every batch entry with a dotted path', () => {
    const r = InventoryBatch.safeParse([
      { item_id: 'a', quantity: 1 },
      { item_id: '', quantity: 1 },
    ]);
    expect(paths(r)).toEqual(['1.item_id']);
  });
});

describe('product bodies', () => {
  it('requires name and price on create', () => {
    expect(paths(ProductCreate.safeParse({ price: 1 }))).toEqual(['name']);
    expect(ProductCreate.safeParse({ name: 'A', price: 0 }).success).toBe(true);
  });
  it('checks links and images case-insensitively and caps images at 10', () => {
    expect(ProductUpdate.safeParse({ links: ['HTTPS://x.test'] }).success).toBe(true);
    expect(paths(ProductUpdate.safeParse({ links: ['ftp://x'] }))).toEqual(['links.0']);
    const eleven = Array.from({ length: 11 }, (_, i) => `https://x.test/${i}.png`);
    expect(paths(ProductUpdate.safeParse({ images: eleven }))).toEqual(['images']);
  });
  it('reports the dotted path of a bad variant price', () => {
    const r = ProductUpdate.safeParse({
      variants: [
        { name: 'S', price: 1 },
        { name: 'M', price: -1 },
      ],
    });
    expect(paths(r)).toEqual(['variants.1.price']);
  });
  it('requires type on new options only', () => {
    expect(ProductUpdate.safeParse({ options: [{ id: 'o1', text: 'Size' }] }).success).toBe(true);
    expect(paths(ProductUpdate.safeParse({ options: [{ text: 'Size' }] }))).toEqual(['options.0.type']);
  });
});

describe('customer and template bodies', () => {
  it('requires digits-only phones', () => {
    expect(CustomerCreate.safeParse({ name: 'A', phone: '60123456789' }).success).toBe(true);
    expect(CustomerCreate.safeParse({ name: 'A', phone: '+60123456789' }).success).toBe(false);
    expect(CustomerCreate.safeParse({ name: 'A', phone: '6012 345' }).success).toBe(false);
  });
  it('enforces template rules', () => {
    const ok = { name: 'order_ready', body: 'Hi {{name}}', category: 'UTILITY' };
    expect(TemplateCreate.safeParse(ok).success).toBe(true);
    expect(paths(TemplateCreate.safeParse({ ...ok, name: 'Order-Ready' }))).toEqual(['name']);
    expect(paths(TemplateCreate.safeParse({ ...ok, header: 'Hi {{name}}' }))).toEqual(['header']);
    expect(paths(TemplateCreate.safeParse({ ...ok, footer: 'x'.repeat(61) }))).toEqual(['footer']);
    expect(
      paths(TemplateCreate.safeParse({ ...ok, header: 'Hi', header_image_url: 'https://x.test/a.png' })),
    ).toEqual(['header_image_url']);
    expect(paths(TemplateCreate.safeParse({ ...ok, header_image_url: 'http://x.test/a.png' }))).toEqual([
      'header_image_url',
    ]);
    expect(paths(TemplateCreate.safeParse({ ...ok, buttons: [{}, {}, {}, {}] }))).toEqual(['buttons']);
  });
  it('lists body variables once, in order', () => {
    expect(templateVariables('Hi {{name}}, order {{ order }} for {{name}}')).toEqual(['name', 'order']);
  });
});

describe('currency decimals', () => {
  it('follows ISO 4217', () => {
    expect(currencyDecimals('USD')).toBe(2);
    expect(currencyDecimals('jpy')).toBe(0);
    expect(currencyDecimals('KWD')).toBe(3);
  });
});

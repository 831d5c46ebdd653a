import { describe, expect, it } from 'vitest';
import { idempotencyKey, stableStringify } from '../../../src/api/idempotency-key.js';

describe('stableStringify', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(stableStringify({ b: 1, a: { d: [3, 1], c: null } })).toBe('{"a":{"c":null,"d":[3,1]},"b":1}');
  });

  it('leaves out undefined properties like JSON does', () => {
    expect(stableStringify({ a: undefined, b: 2 })).toBe('{"b":2}');
  });
});

describe('idempotencyKey', () => {
  const body = { name: 'Mug', price: 1290, tags: ['a', 'b'] };

  it('is deterministic and independent of key order', () => {
    const a = idempotencyKey('plan-1', 'products.create:row-2', body);
    const b = idempotencyKey('plan-1', 'products.create:row-2', {
      tags: ['a', 'b'],
      price: 1290,
      name: 'Mug',
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^mb1_[A-Za-z0-9_-]{43}$/);
  });

  it('changes with the namespace, the operation and the body', () => {
    const base = idempotencyKey('plan-1', 'op', body);
    expect(idempotencyKey('plan-2', 'op', body)).not.toBe(base);
    expect(idempotencyKey('plan-1', 'op2', body)).not.toBe(base);
    expect(idempotencyKey('plan-1', 'op', { ...body, price: 1291 })).not.toBe(base);
    expect(idempotencyKey('plan-1', 'op', { ...body, tags: ['b', 'a'] })).not.toBe(base);
  });

  it('does not let the separator be forged by concatenation', () => {
    expect(idempotencyKey('a', 'bc', null)).not.toBe(idempotencyKey('ab', 'c', null));
  });
});

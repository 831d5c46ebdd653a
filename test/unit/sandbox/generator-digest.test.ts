import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateStore, type GenerateStoreOptions } from '../../../src/sandbox/generator.js';

// Pins the generator's output across code changes, not only within one process: tests, benches and
// users' `--generate` stores depend on a seed giving the same store release after release. A change
// that alters these digests changes every generated store; if that is intended, say so in the
// changelog and update the digests (`JSON.stringify(generateStore(opts))`, SHA-256, hex).
const PINNED: readonly { opts: GenerateStoreOptions; sha256: string }[] = [
  {
    opts: { seed: 1, products: 300, customers: 200, orders: 500 },
    sha256: 'bf6299f6135210f0099465df8abfdbf95a28e83b10fb52e95cbb93e0a27ee1f6',
  },
  {
    opts: { seed: 1, products: 300, customers: 200, orders: 500, currency: 'JPY', country: 'JP' },
    sha256: 'e7c82e064a49337371b69ed69a620276db1dfeeb3f2a7bbd22367a4e17f67d0f',
  },
  {
    opts: { seed: 1, products: 300, customers: 200, orders: 500, currency: 'USD', country: 'US' },
    sha256: '0ff7d150ee3fe8261ee2c8d0fecc83a890b69949af93a2dd175e8e9527e67573',
  },
  {
    opts: { seed: 42, products: 300, customers: 200, orders: 500, currency: 'SGD', country: 'SG' },
    sha256: 'b59e371baf8ff90c21d43534259b808026a494d91b98dbf6bb3d49bcdcf68d93',
  },
  {
    opts: { seed: 7, products: 300, customers: 200, orders: 500, currency: 'KWD' },
    sha256: 'fcae9bcb349a17e769085c134e3a967e381a4440474793a441d5b4ce1555010d',
  },
];

describe('generateStore output is pinned', () => {
  it.each(PINNED)('seed $opts.seed, $opts.currency: the same bytes as when pinned', ({ opts, sha256 }) => {
    const json = JSON.stringify(generateStore(opts));
    expect(createHash('sha256').update(json).digest('hex')).toBe(sha256);
  });
});

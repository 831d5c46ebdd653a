/**
 * Product pages are checked by zod's compiled schema (issue 41: every page of a store's catalog is
 * validated by a stock import or a catalog read). The compiled check must give what the runtime
 * parse gives: the pages as the API sent them, and an invalid page refused naming the field.
 */
import { describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import type { FetchLike } from '../../../src/api/transport.js';
import { SandboxApp } from '../../../src/sandbox/app.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { SandboxStore } from '../../../src/sandbox/store.js';
import { Product } from '../../../src/schema/product.js';

const app = new SandboxApp(
  new SandboxStore({ state: generateStore({ products: 250, customers: 0, orders: 0, seed: 9 }) }),
);

/** The sandbox's pages of products, as JSON values. */
async function pages(): Promise<{ data: Record<string, unknown>[]; next_cursor: string | null }[]> {
  const out: { data: Record<string, unknown>[]; next_cursor: string | null; has_more: boolean }[] = [];
  let cursor: string | null = null;
  do {
    const res = await app.handle({
      method: 'GET',
      url: `/api/v2/products?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      headers: { authorization: `Bearer ${app.token}` },
      body: '',
    });
    const page = JSON.parse(String(res.body)) as (typeof out)[number];
    out.push(page);
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor !== null);
  return out;
}

/** What the client's product list gives for these pages, served in order. */
async function read(served: unknown[]): Promise<unknown[]> {
  let i = 0;
  const fetch: FetchLike = async () => {
    const body = JSON.stringify(served[i++]);
    return { status: 200, headers: { get: () => null }, text: async () => body };
  };
  const client = new MerchantClient({ baseUrl: 'https://sandbox.test', token: 't', fetch });
  try {
    const products: unknown[] = [];
    for await (const page of client.products.list().pages()) products.push(...page.data);
    return products;
  } finally {
    await client.close();
  }
}

describe('product pages validated by the compiled schema', () => {
  it('give every product as the runtime parse gives it, variants and inventory included', async () => {
    const served = await pages();
    expect(served.length).toBe(3);
    const products = await read(served);
    expect(products).toHaveLength(250);
    expect(products).toEqual(served.flatMap((p) => p.data.map((d) => Product.parse(d))));
    expect(products).toEqual(served.flatMap((p) => p.data));
  });

  it('refuse a wrong field of a variant, naming its path', async () => {
    const served = await pages();
    const bad = structuredClone(served[1]!);
    const at = bad.data.findIndex((d) => (d['variants'] as unknown[]).length > 0);
    expect(at).toBeGreaterThanOrEqual(0);
    (bad.data[at] as { variants: Record<string, unknown>[] }).variants[0]!['price'] = '12.90';
    await expect(read([served[0], bad, served[2]])).rejects.toMatchObject({
      name: 'ApiContractError',
      message: expect.stringContaining(`data.${at}.variants.0.price`),
    });
  });
});

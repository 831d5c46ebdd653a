import { NotFoundError } from '../../api/errors.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import type { Product } from '../../schema/index.js';

/**
 * The product as it is now: `GET /products/{id}`, or, when that route answers 404 (a service
 * without it, or the sandbox in strict mode), a full listing scan. Undefined when it is gone.
 */
export async function readLiveProduct(
  client: MerchantClient,
  id: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<Product | undefined> {
  try {
    return await client.products.get(id, options);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  for await (const p of client.products.list({}, options)) if (p.id === id) return p;
  return undefined;
}

type Entry = Record<string, unknown>;

/** The PATCH to settle (a product plan entry, or a rollback's product restore). */
export interface ProductPatchTarget {
  key: string;
  label: string;
  productId: string | null;
  /** `updated_at` of the product when the PATCH was planned (null: unknown). */
  expectedUpdatedAt: string | null;
  body?: unknown;
}

const isScalar = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** A live entry the body's new (id-less) entry became: same sku when it has one, else same name/text. */
function created(
  entry: Entry,
  live: readonly Entry[],
  listed: ReadonlySet<unknown>,
  nameKey: string,
): boolean {
  const sku = typeof entry['sku'] === 'string' && entry['sku'] !== '' ? entry['sku'] : undefined;
  return live.some((l) =>
    listed.has(l['id']) ? false : sku !== undefined ? l['sku'] === sku : l[nameKey] === entry[nameKey],
  );
}

/**
 * Settles a product PATCH whose answer was lost (`reconcile` of the product apply). Re-reads the
 * product: still at the `updated_at` seen when planning → `not_applied` (safe to send); else, when
 * every variant/option the PATCH creates exists and the body's scalar fields equal the live values
 * → `{ applied: product }`. Anything else throws (the operation stays unknown, never resent).
 */
export async function reconcileProductPatch(
  client: MerchantClient,
  entry: ProductPatchTarget,
  options: { signal?: AbortSignal | undefined } = {},
  /** The product already re-read (undefined: read it now). */
  read?: Product,
): Promise<'not_applied' | { applied: Product }> {
  const id = entry.productId;
  if (id === null || entry.body === null || typeof entry.body !== 'object') {
    throw new Error(`cannot tell whether the change to ${entry.label} (${entry.key}) reached the store`);
  }
  const live = read ?? (await readLiveProduct(client, id, options));
  if (live === undefined) {
    throw new Error(
      `could not tell whether the change to ${entry.label} (${id}) reached the store: the product is gone; it will not be resent`,
    );
  }
  if (entry.expectedUpdatedAt !== null && live.updated_at === entry.expectedUpdatedAt) return 'not_applied';
  const body = entry.body as Entry;
  const mismatches: string[] = [];
  const liveRecord = live as unknown as Entry;
  for (const [key, value] of Object.entries(body)) {
    if (isScalar(value) && key in liveRecord && liveRecord[key] !== value) mismatches.push(key);
  }
  for (const [list, nameKey] of [
    ['variants', 'name'],
    ['options', 'text'],
  ] as const) {
    const sent = body[list];
    if (!Array.isArray(sent)) continue;
    const entries = sent as Entry[];
    const listed = new Set(entries.map((e) => e['id']).filter((x) => x !== undefined));
    const liveList = live[list] as unknown as Entry[];
    for (const e of entries) {
      if (e['id'] === undefined && !created(e, liveList, listed, nameKey)) {
        mismatches.push(
          `new ${list === 'variants' ? 'variant' : 'option'} "${String(e['sku'] ?? e[nameKey])}"`,
        );
      }
    }
  }
  if (mismatches.length === 0) return { applied: live };
  throw new Error(
    `could not tell whether the change to ${entry.label} (${id}) reached the store: it changed since planning but ${mismatches.join(', ')} ${mismatches.length === 1 ? 'does' : 'do'} not match the planned change; check it and fix by hand, it will not be resent`,
  );
}

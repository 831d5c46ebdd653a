import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so that the same value always serialises to the same
 * text whatever order its keys were built in. `undefined` properties are left out (as JSON.stringify
 * does); arrays keep their order (it is meaningful: variants, images).
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return sortKeys((value as { toJSON(): unknown }).toJSON());
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/**
 * A deterministic Idempotency-Key: the same namespace (e.g. a plan id), operation identity (e.g.
 * `products.create:row-17`) and body always give the same key, so a resumed run resends the key the
 * interrupted run used, and the service replays instead of acting twice. A different body gives a
 * different key (the service would reject a reused key with another body).
 *
 * Format: `mb1_` + base64url(sha256(namespace NUL identity NUL stableStringify(body))), 47 chars.
 */
export function idempotencyKey(namespace: string, operationIdentity: string, body: unknown): string {
  const hash = createHash('sha256')
    .update(namespace)
    .update('\0')
    .update(operationIdentity)
    .update('\0')
    .update(stableStringify(body ?? null))
    .digest('base64url');
  return `mb1_${hash}`;
}

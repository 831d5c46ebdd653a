import { createHash } from 'node:crypto';
import { stableStringify } from '../schema/stable-stringify.js';

export { stableStringify } from '../schema/stable-stringify.js';

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

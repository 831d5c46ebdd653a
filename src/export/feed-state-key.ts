import { selectionText, type OrderSelection } from './order-selection.js';
import type { OrderPeriod } from './order-period.js';

/** The default feed name of incremental order exports (`--feed`). */
export const DEFAULT_FEED = 'orders';

/** What makes two incremental order exports the same stream of orders. */
export interface FeedIdentity {
  /** The store (`/me` id): two stores never share a watermark. */
  storeId: string;
  /** The feed name (`--feed`). Default DEFAULT_FEED. */
  feed?: string;
  /** The accounting profile, when the feed writes one (`xero`, `quickbooks`). */
  profile?: string;
  /** The status sets. */
  selection?: OrderSelection;
  /** The period as the user gave it (days as typed, `2026-11-01`). */
  period?: OrderPeriod;
}

/**
 * The key of a feed's watermark (and ledger) in the export state file:
 * `store_1 feed=orders profile=xero ?payment_status=paid&since=2026-11-01`.
 *
 * One watermark per store, feed, profile and filters, never per file name: a dated file name
 * (`orders-{date}.csv`) starts each night where the last night stopped, and the same feed exported
 * with other filters is another stream of orders (sharing a watermark would skip or repeat some).
 * The period enters as the user typed it, so the key does not depend on the store's time zone.
 */
export function feedStateKey(identity: FeedIdentity): string {
  const feed = identity.feed ?? DEFAULT_FEED;
  const period = identity.period ?? {};
  const extra = Object.entries({
    since: period.since,
    until: period.until,
    updated_since: period.updatedSince,
  })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${String(v)}`);
  const selection = identity.selection ? selectionText(identity.selection) : '';
  const filters = [selection, ...extra].filter((t) => t !== '').join('&');
  return `${identity.storeId} feed=${feed}${identity.profile ? ` profile=${identity.profile}` : ''}${filters === '' ? '' : ` ?${filters}`}`;
}

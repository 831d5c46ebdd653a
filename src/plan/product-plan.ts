import type { ProductKey, SourceRow } from '../mapping/product-desired.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { ProductCreate, ProductUpdate } from '../schema/product.js';
import type { CategoryPlan } from './category-plan.js';
import type { StockUnknown } from './stock-unknown.js';

/**
 * What happens to one product:
 * - `create`: POST body `ProductCreate`;
 * - `update`: PATCH body `ProductUpdate` with only the changed fields (and the kept list entries);
 * - `hide`: PATCH `{ status: 'HIDDEN' }`;
 * - `delete`: DELETE, no body;
 * - `noop`: nothing to write; `skip`: the sheet said `skip`; `invalid`: errors, nothing written.
 */
export const PLAN_ACTIONS = ['create', 'update', 'hide', 'delete', 'noop', 'skip', 'invalid'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

/** A JSON value shown in a change line. */
export type PlanValue = string | number | boolean | null | string[];

/** One field-level change, before → after. */
export interface FieldChange {
  /** `price`, `variants[S-1].price`, `options[Size].settings`, `variants[S-2]` (whole entry). */
  path: string;
  before: PlanValue;
  after: PlanValue;
  /** The values are minor units (shown in currency units). */
  money?: true;
  /** Whole-entry changes: a variant or option added or removed, a product created. */
  note?: 'added' | 'removed' | 'created';
}

/** An image URL of the body that the service will fetch (not yet on its storage). */
export interface ImageUpload {
  /** Index in `body.images`. */
  index: number;
  /** The sheet's URL: remember `source` → `response.images[index]` after a successful write. */
  source: string;
}

/** What every entry of a product plan has. */
export interface PlanEntryFields {
  /**
   * Stable operation identity: `create:ref:<reference_id>`, `create:sku:<sku>`, `update:<id>`,
   * `hide:<id>`, `delete:<id>`; non-writing entries `noop:<id>`, `skip:…`, `invalid:…`. Derive
   * idempotency keys from it (with the plan id) and journal it.
   */
  key: string;
  /** Live product id (null for creates and unmatched invalid/skip entries). */
  productId: string | null;
  /** How the sheet identified the product (null for `--missing` entries). */
  match: ProductKey | null;
  /** Human label: reference_id, sku or name. */
  label: string;
  /** Live `updated_at` seen when planning: apply refuses if it moved (drift). Null for creates. */
  expectedUpdatedAt: string | null;
  changes: FieldChange[];
  /** Every source row of this product (empty for `--missing` entries). */
  rows: SourceRow[];
  /** Errors (invalid entries) and warnings. */
  issues: RowIssue[];
  /** Images the service will fetch (create/update with new image URLs). */
  imageUploads?: ImageUpload[];
  /** Why this entry exists when no row asked for it, e.g. `missing from the sheet (--missing hide)`. */
  reason?: string;
}

/**
 * One product of the plan, by what it writes: a create POSTs a ProductCreate; an update or a hide
 * PATCHes a ProductUpdate of a live product; a delete DELETEs a live product; the others write
 * nothing.
 */
export type PlanEntry =
  | (PlanEntryFields & { action: 'create'; productId: null; body: ProductCreate })
  | (PlanEntryFields & { action: 'update' | 'hide'; productId: string; body: ProductUpdate })
  | (PlanEntryFields & { action: 'delete'; productId: string; body?: undefined })
  | (PlanEntryFields & { action: 'noop' | 'skip' | 'invalid'; body?: undefined });

export type PlanSummary = Record<PlanAction, number> & { total: number };

export interface ProductPlan {
  format: 'merchant-bulk/product-plan';
  version: 1;
  /** Decimals of the store currency, for showing money. */
  decimals: number;
  options: {
    missing: 'ignore' | 'hide' | 'delete';
    /** `images` absent in plans written before it existed (= false: live images kept). */
    replace: { variants: boolean; options: boolean; images?: boolean };
  };
  /** Set when `stockSince` spared items whose stock changed after the export (one plan warning). */
  stockSpared?: string;
  /**
   * Set when products track stock the sheet does not give (a new item would be created at 0): how
   * many, and how `--stock-unknown` had them read; without a mode `--apply` refuses.
   */
  stockUnknown?: StockUnknown;
  /** What the plan's new products get as categories (absent: it creates none). */
  categories?: CategoryPlan;
  /** Live products when planning (for the guardrail). */
  liveCount: number;
  entries: PlanEntry[];
  summary: PlanSummary;
  /** Set when `missing` was asked for but not applied (rows without a key), saying why. */
  missingSkipped?: string;
  /**
   * Set when `replace` was asked for but not applied (rows without a key: an entry on such a row
   * would look left out of the sheet and be deleted), saying why. `options.replace` is what applied.
   */
  replaceSkipped?: string;
  /** `--stock-unknown KEY=MODE` choices no product of unknown stock took (a warning). */
  stockChoicesUnused?: string;
}

import { unpackProduct, type ColumnRefs, type DesiredProduct } from '../mapping/product-desired.js';
import type { RowIssue } from '../mapping/row-issue.js';
import { z } from 'zod';
import { ProductCreate, ProductUpdate } from '../schema/product.js';
import { createProductFields, diffProductFields } from './diff-product-fields.js';
import { diffImages } from './diff-images.js';
import { createOptions, diffOptions } from './diff-options.js';
import { createVariants, diffVariants } from './diff-variants.js';
import type { LiveCatalog, LiveProduct } from './live-catalog.js';
import { planIssue, spareStock } from './plan-context.js';
import type { PlanContext } from './plan-context.js';
import type { FieldChange, ImageUpload, PlanEntry, PlanEntryFields, ProductPlan } from './product-plan.js';
import { summarizePlan } from './summarize-plan.js';
import { readUnknownStock, type StockUnknown, type StockUnknownMode } from './stock-unknown.js';
import { CategoryPlanner, type CategoryChoice } from './category-plan.js';

export interface PlanProductsOptions {
  /** Decimals of the store currency (for showing money; the plan stores it). Required. */
  decimals: number;
  /** Live products absent from the sheet: `ignore` (default), `hide` or `delete`. */
  missing?: 'ignore' | 'hide' | 'delete';
  /**
   * Replace lists instead of keeping what the sheet does not list (default: keep both). Applies to
   * products whose rows list variants / options; others keep theirs untouched.
   */
  replace?: { variants?: boolean; options?: boolean; images?: boolean };
  /** Source URL → stored URL remembered from earlier applies to this store (default empty). */
  imageMemory?: ReadonlyMap<string, string>;
  /** `ProductMapping.columnRefs`, so plan-time issues name the cell (default: header names only). */
  columnRefs?: ColumnRefs;
  /**
   * `ProductMapping.unkeyedRows` (default 0). When > 0, `missing` is not applied: a row whose key
   * was lost would otherwise make its product look absent and get it hidden or deleted.
   */
  unkeyedRows?: number;
  /**
   * `ProductMapping.unkeyedOptionRows` (default 0). When > 0, `replace.options` is not applied;
   * likewise `replace.variants` when `unkeyedRows` > 0: an entry on a row whose key was lost would
   * otherwise look left out of the sheet and be deleted.
   */
  unkeyedOptionRows?: number;
  /**
   * The sheet's `mbulk_exported_at` (ISO 8601): an item whose stock changed after it keeps its live
   * stock, and the plan says how many were spared (`stockSpared`). Default: stock as on the sheet.
   */
  stockSince?: string;
  /**
   * What to do with stock the sheet tracks without giving it (see readUnknownStock); default:
   * planned as it is, with `plan.stockUnknown` saying so (and `--apply` refusing).
   */
  stockUnknown?: StockUnknownMode | undefined;
  /**
   * `--stock-unknown KEY=MODE`: the mode of the product whose reference_id, SKU or key is KEY (before
   * `stockUnknown`). A KEY that names no product of unknown stock is not an error: the plan warns
   * (`stockChoicesUnused`), so that the same command line plans a re-import.
   */
  stockUnknownByProduct?: ReadonlyMap<string, StockUnknownMode> | undefined;
  /**
   * The sheet is a platform export (default false): a blank quantity there means "not exported",
   * so existing items count as unknown too; in the project's own sheets it means "leave alone".
   */
  platformExport?: boolean;
  /** How new products get categories (see CategoryChoice); default: as the sheet gives them. */
  categories?: CategoryChoice | undefined;
}

const EMPTY_MEMORY: ReadonlyMap<string, string> = new Map();

function labelOf(dp: DesiredProduct, live?: LiveProduct): string {
  const f = dp.fields;
  return f.reference_id ?? f.sku ?? f.name ?? live?.reference_id ?? live?.sku ?? dp.key.value;
}

/** What `--stock-unknown KEY=MODE` takes for this product (see ownStockChoice): shown as its example. */
function stockKeyOf(dp: DesiredProduct): string {
  return dp.fields.reference_id ?? dp.fields.sku ?? dp.key.value;
}

function firstRowKey(dp: DesiredProduct): string {
  const r = dp.rows[0];
  return r === undefined ? `${dp.key.by}:${dp.key.value}` : `${r.sheet}:${r.rowNumber}`;
}

function keyColumn(dp: DesiredProduct): string {
  return dp.key.by;
}

interface Match {
  live?: LiveProduct;
  issues: RowIssue[];
  /** The sheet named an id that the store does not have. */
  unknownId?: boolean;
}

/** Finds the live product of a desired one: by id, else reference_id, else sku. */
function matchLive(ctx: PlanContext, dp: DesiredProduct): Match {
  const { catalog } = ctx;
  const f = dp.fields;
  const row = dp.rows[0] ?? { sheet: 'products', rowNumber: 0 };
  if (f.id !== undefined) {
    const live = catalog.byId.get(f.id);
    return live === undefined ? { issues: [], unknownId: true } : { live, issues: [] };
  }
  if (f.reference_id !== undefined) {
    const live = catalog.byReferenceId.get(f.reference_id);
    if (live !== undefined) return { live, issues: [] };
    if (f.sku === undefined) return { issues: [] };
    const bySku = catalog.bySku.get(f.sku);
    if (bySku === undefined) return { issues: [] };
    if (bySku.reference_id !== null && bySku.reference_id !== '') {
      return {
        issues: [
          planIssue(
            ctx,
            row,
            'sku',
            'sku_taken',
            `sku "${f.sku}" belongs to the store's product with reference_id "${bySku.reference_id}" (id ${bySku.id}), not "${f.reference_id}"; fix the reference_id or use another sku`,
          ),
        ],
      };
    }
    // A product without reference_id found by its sku: this import gives it the reference_id.
    return { live: bySku, issues: [] };
  }
  if (f.sku !== undefined) {
    const live = catalog.bySku.get(f.sku);
    if (live !== undefined) return { live, issues: [] };
  }
  return { issues: [] };
}

/** Identifier changes must not take another live product's reference_id or sku. */
function checkIdentifiers(ctx: PlanContext, dp: DesiredProduct, live: LiveProduct | undefined): RowIssue[] {
  const issues: RowIssue[] = [];
  const f = dp.fields;
  const row = dp.rows[0] ?? { sheet: 'products', rowNumber: 0 };
  if (f.reference_id !== undefined && f.reference_id !== '') {
    const other = ctx.catalog.byReferenceId.get(f.reference_id);
    if (other !== undefined && other !== live) {
      issues.push(
        planIssue(
          ctx,
          row,
          'reference_id',
          'reference_id_taken',
          `reference_id "${f.reference_id}" already belongs to another product in the store (id ${other.id}); each product needs its own`,
        ),
      );
    }
  }
  if (f.sku !== undefined && f.sku !== '') {
    const other = ctx.catalog.bySku.get(f.sku) ?? ctx.catalog.byVariantSku.get(f.sku);
    if (other !== undefined && other !== live) {
      issues.push(
        planIssue(
          ctx,
          row,
          'sku',
          'sku_taken',
          `sku "${f.sku}" already belongs to another product in the store (id ${other.id}); write a different sku`,
        ),
      );
    }
  }
  return issues;
}

function hasErrors(issues: readonly RowIssue[]): boolean {
  return issues.some((i) => i.severity === 'error');
}

function baseEntry(dp: DesiredProduct, live: LiveProduct | undefined): Omit<PlanEntryFields, 'key'> {
  return {
    productId: live?.id ?? null,
    match: dp.key,
    label: labelOf(dp, live),
    expectedUpdatedAt: live?.updated_at ?? null,
    changes: [],
    rows: dp.rows,
    issues: [...dp.issues],
  };
}

function invalidEntry(
  dp: DesiredProduct,
  live: LiveProduct | undefined,
  issues: readonly RowIssue[],
): PlanEntry {
  const e: PlanEntry = { key: `invalid:${firstRowKey(dp)}`, action: 'invalid', ...baseEntry(dp, live) };
  for (const i of issues) e.issues.push(i);
  return e;
}

/**
 * The body schemas compiled once (zod's `z.compile`): the same verdict and issues (a rejected body
 * is re-run through the runtime parser for them), about 3× less CPU per product on a cold run.
 */
const CREATE_BODY = z.compile(ProductCreate);
const UPDATE_BODY = z.compile(ProductUpdate);

/** Last line of defence: a body the schema rejects is never written. */
function checkBody(
  ctx: PlanContext,
  dp: DesiredProduct,
  body: unknown,
  schema: typeof ProductCreate | typeof ProductUpdate,
): RowIssue[] {
  const r = schema.safeParse(body);
  if (r.success) return [];
  const row = dp.rows[0] ?? { sheet: 'products', rowNumber: 0 };
  return r.error.issues.map((i) =>
    planIssue(
      ctx,
      row,
      typeof i.path[0] === 'string' ? i.path[0] : undefined,
      'invalid_body',
      `${i.path.join('.')}: ${i.message}`,
    ),
  );
}

function planCreate(ctx: PlanContext, dp: DesiredProduct): PlanEntry {
  let f = dp.fields;
  // A new product without a price of its own takes its lowest variant price (the API needs one),
  // as a platform export's product does.
  if (f.price === undefined) {
    const prices = dp.variants.map((v) => v.fields.price).filter((p) => p !== undefined);
    if (prices.length > 0) f = { ...f, price: Math.min(...prices) };
  }
  const row = dp.rows[0] ?? { sheet: 'products', rowNumber: 0 };
  const issues = checkIdentifiers(ctx, dp, undefined);
  if (f.name === undefined || f.name === '') {
    issues.push(
      planIssue(ctx, row, 'name', 'name_required', 'a new product needs a name: write it on its first row'),
    );
  }
  if (f.price === undefined) {
    issues.push(
      planIssue(
        ctx,
        row,
        'price',
        'price_required',
        'a new product needs a price: write it on its first row',
      ),
    );
  }
  const body: Record<string, unknown> = {};
  const changes: FieldChange[] = [{ path: 'product', before: null, after: null, note: 'created' }];
  createProductFields(f, body, changes);
  let imageUploads: ImageUpload[] | undefined;
  if (f.images !== undefined) {
    body['images'] = f.images;
    changes.push({ path: 'images', before: null, after: f.images });
    if (f.images.length > 0) imageUploads = f.images.map((source, index) => ({ index, source }));
  }
  if (dp.variants.length > 0) {
    const v = createVariants(ctx, dp.variants);
    body['variants'] = v.variants;
    changes.push(...v.changes);
    issues.push(...v.issues);
  }
  if (dp.options !== undefined && dp.options.length > 0) {
    const o = createOptions(ctx, dp.options);
    body['options'] = o.options;
    changes.push(...o.changes);
    issues.push(...o.issues);
  }
  if (!hasErrors(issues)) issues.push(...checkBody(ctx, dp, body, CREATE_BODY));
  if (hasErrors(issues)) return invalidEntry(dp, undefined, issues);
  const entry: PlanEntry = {
    key:
      f.reference_id !== undefined ? `create:ref:${f.reference_id}` : `create:sku:${f.sku ?? dp.key.value}`,
    action: 'create',
    ...baseEntry(dp, undefined),
    productId: null,
    body: body as ProductCreate,
    changes,
  };
  entry.issues.push(...issues);
  if (imageUploads !== undefined) entry.imageUploads = imageUploads;
  return entry;
}

/** At most this many images per product (docs/architecture.md, the API's behaviour rule 2). */
const MAX_IMAGES = 10;

function planUpdate(
  ctx: PlanContext,
  dp: DesiredProduct,
  live: LiveProduct,
  replaceImages: boolean,
): PlanEntry {
  const issues = checkIdentifiers(ctx, dp, live);
  const body: Record<string, unknown> = {};
  const changes: FieldChange[] = [];
  let fields = dp.fields;
  if (
    fields.inventory_quantity !== undefined &&
    spareStock(
      ctx,
      live.inventory_updated_at,
      live.updated_at,
      fields.inventory_quantity,
      live.inventory_quantity,
    )
  ) {
    const { inventory_quantity: _spared, ...rest } = fields;
    fields = rest;
  }
  diffProductFields(fields, live, body, changes);
  let imageUploads;
  if (dp.fields.images !== undefined) {
    const d = diffImages(dp.fields.images, live.images, ctx.imageMemory, { keepLive: !replaceImages });
    if (d.images.length > MAX_IMAGES) {
      const row = dp.rows[0] ?? { sheet: 'products', rowNumber: 0 };
      const kept = d.images.length - dp.fields.images.length;
      issues.push(
        planIssue(
          ctx,
          row,
          'images',
          'too_many_images',
          replaceImages
            ? `${d.images.length} images; a product has at most ${MAX_IMAGES}: remove some`
            : `${d.images.length} images (${dp.fields.images.length} on the sheet + ${kept} live image(s) the sheet does not list, which are kept); a product has at most ${MAX_IMAGES}: remove some or use --replace images`,
        ),
      );
    } else if (d.changed) {
      body['images'] = d.images;
      changes.push({ path: 'images', before: live.images, after: d.images });
      if (d.uploads.length > 0) imageUploads = d.uploads;
    }
  }
  if (dp.variants.length > 0) {
    const v = diffVariants(ctx, dp.variants, live);
    if (v.variants !== undefined) body['variants'] = v.variants;
    changes.push(...v.changes);
    issues.push(...v.issues);
  }
  if (dp.options !== undefined && dp.options.length > 0) {
    const o = diffOptions(ctx, dp.options, live);
    if (o.options !== undefined) body['options'] = o.options;
    changes.push(...o.changes);
    issues.push(...o.issues);
  }
  const hasBody = Object.keys(body).length > 0;
  if (hasBody && !hasErrors(issues)) issues.push(...checkBody(ctx, dp, body, UPDATE_BODY));
  if (hasErrors(issues)) return invalidEntry(dp, live, issues);
  if (!hasBody) {
    const e: PlanEntry = { key: `noop:${live.id}`, action: 'noop', ...baseEntry(dp, live) };
    e.issues.push(...issues);
    return e;
  }
  const entry: PlanEntry = {
    key: `update:${live.id}`,
    action: 'update',
    ...baseEntry(dp, live),
    productId: live.id,
    body: body as ProductUpdate,
    changes,
  };
  entry.issues.push(...issues);
  if (imageUploads !== undefined) entry.imageUploads = imageUploads;
  return entry;
}

/**
 * The entry of a sheet product whose live product was kept compact because, planned alone against
 * it, the product is unchanged (LiveProduct.compact): what planUpdate gives then, the whole
 * catalog's identifier checks included (they alone can add issues to an unchanged product).
 */
function planUnchanged(ctx: PlanContext, dp: DesiredProduct, live: LiveProduct): PlanEntry {
  if (live.compact?.noopFor !== dp) {
    throw new Error(
      `internal: product ${live.id} was kept compact for another sheet product than ${dp.key.value}`,
    );
  }
  const issues = checkIdentifiers(ctx, dp, live);
  if (hasErrors(issues)) return invalidEntry(dp, live, issues);
  const e: PlanEntry = { key: `noop:${live.id}`, action: 'noop', ...baseEntry(dp, live) };
  e.issues.push(...issues);
  return e;
}

function planHide(dp: DesiredProduct | undefined, live: LiveProduct, reason?: string): PlanEntry {
  const base: Omit<PlanEntryFields, 'key'> =
    dp === undefined
      ? {
          productId: live.id,
          match: null,
          label: live.reference_id ?? (live.sku !== '' ? live.sku : live.name),
          expectedUpdatedAt: live.updated_at,
          changes: [],
          rows: [],
          issues: [],
        }
      : baseEntry(dp, live);
  if (live.status === 'HIDDEN') return { key: `noop:${live.id}`, action: 'noop', ...base };
  const e: PlanEntry = {
    key: `hide:${live.id}`,
    action: 'hide',
    ...base,
    productId: live.id,
    body: { status: 'HIDDEN' },
    changes: [{ path: 'status', before: live.status, after: 'HIDDEN' }],
  };
  if (reason !== undefined) e.reason = reason;
  return e;
}

function planDelete(dp: DesiredProduct | undefined, live: LiveProduct, reason?: string): PlanEntry {
  const base: Omit<PlanEntryFields, 'key'> =
    dp === undefined
      ? {
          productId: live.id,
          match: null,
          label: live.reference_id ?? (live.sku !== '' ? live.sku : live.name),
          expectedUpdatedAt: live.updated_at,
          changes: [],
          rows: [],
          issues: [],
        }
      : baseEntry(dp, live);
  const e: PlanEntry = {
    key: `delete:${live.id}`,
    action: 'delete',
    ...base,
    productId: live.id,
    changes: [{ path: 'product', before: null, after: null, note: 'removed' }],
  };
  if (reason !== undefined) e.reason = reason;
  return e;
}

function planOne(ctx: PlanContext, dp: DesiredProduct, m: Match, replaceImages: boolean): PlanEntry {
  const live = m.live;
  const row = dp.rows[0] ?? { sheet: 'products', rowNumber: 0 };
  if (dp.invalid || hasErrors(m.issues)) return invalidEntry(dp, live, m.issues);
  switch (dp.command) {
    case 'skip':
      return { key: `skip:${firstRowKey(dp)}`, action: 'skip', ...baseEntry(dp, live) };
    case 'delete':
      if (live === undefined) {
        const e: PlanEntry = { key: `noop:${firstRowKey(dp)}`, action: 'noop', ...baseEntry(dp, undefined) };
        e.issues.push(
          planIssue(
            ctx,
            row,
            keyColumn(dp),
            'already_absent',
            'the product to delete is not in the store (already deleted?)',
            'warning',
          ),
        );
        return e;
      }
      return planDelete(dp, live);
    case 'hide':
      if (live === undefined) {
        return invalidEntry(dp, undefined, [
          planIssue(
            ctx,
            row,
            keyColumn(dp),
            'product_not_found',
            `no product in the store has ${dp.key.by} "${dp.key.value}"; fix the key or use command create`,
          ),
        ]);
      }
      return planHide(dp, live);
    case 'create':
      if (live !== undefined) {
        return invalidEntry(dp, live, [
          planIssue(
            ctx,
            row,
            'command',
            'already_exists',
            `a product with ${dp.key.by} "${dp.key.value}" already exists (id ${live.id}); use command update or upsert`,
          ),
        ]);
      }
      if (m.unknownId) {
        return invalidEntry(dp, undefined, [
          planIssue(
            ctx,
            row,
            'id',
            'id_on_create',
            'a new product cannot be given an id; leave id blank and identify it by reference_id or sku',
          ),
        ]);
      }
      return planCreate(ctx, dp);
    case 'update':
    case 'upsert':
      if (live?.compact !== undefined) return planUnchanged(ctx, dp, live);
      if (live !== undefined) return planUpdate(ctx, dp, live, replaceImages);
      if (m.unknownId) {
        return invalidEntry(dp, undefined, [
          planIssue(
            ctx,
            row,
            'id',
            'product_not_found',
            `no product in the store has id "${dp.key.value}"; leave id blank to create a new product`,
          ),
        ]);
      }
      if (dp.command === 'update') {
        return invalidEntry(dp, undefined, [
          planIssue(
            ctx,
            row,
            keyColumn(dp),
            'product_not_found',
            `no product in the store has ${dp.key.by} "${dp.key.value}"; fix the key or use command create (or upsert)`,
          ),
        ]);
      }
      return planCreate(ctx, dp);
  }
}

/**
 * The diff: sheet products against the live catalog, as a plain-JSON plan. Pure: no I/O.
 *
 * Each desired product becomes one entry (create / update / hide / delete / noop / skip / invalid).
 * A live product matched by an invalid sheet product still counts as present (never hidden or
 * deleted by `missing`). Live products absent from the sheet get hide/delete entries with
 * `missing: 'hide' | 'delete'` (the guardrail, checkGuardrail, decides whether to run them).
 */
export function planProducts(
  desired: readonly DesiredProduct[],
  live: LiveCatalog,
  options: PlanProductsOptions,
): ProductPlan {
  // Products still packed (a large sheet's, ProductMappingOptions.pack) are planned whole.
  for (const dp of desired) unpackProduct(dp);
  const unkeyedRows = options.unkeyedRows ?? 0;
  const unkeyedOptionRows = options.unkeyedOptionRows ?? 0;
  const wantVariants = options.replace?.variants === true;
  const wantOptions = options.replace?.options === true;
  const replace = {
    variants: wantVariants && unkeyedRows === 0,
    options: wantOptions && unkeyedOptionRows === 0,
  };
  const replaceImages = options.replace?.images === true;
  const notReplaced: string[] = [];
  if (wantVariants && !replace.variants) notReplaced.push(`variants (${unkeyedRows} products row(s))`);
  if (wantOptions && !replace.options) notReplaced.push(`options (${unkeyedOptionRows} options row(s))`);
  const ctx: PlanContext = {
    catalog: live,
    decimals: options.decimals,
    replace,
    imageMemory: options.imageMemory ?? EMPTY_MEMORY,
    columnRefs: options.columnRefs ?? {},
    stockSince: options.stockSince === undefined ? undefined : Date.parse(options.stockSince),
    spared: 0,
  };
  const missing = options.missing ?? 'ignore';
  const seen = new Map<string, DesiredProduct>();
  const entries: PlanEntry[] = [];
  const unknownStock: StockUnknown = { products: 0, items: 0, examples: [] };
  const ownChoicesUsed = new Set<string>();
  let unchosen = 0;
  const categories = new CategoryPlanner(live, options.categories ?? {});
  for (const sheetProduct of desired) {
    const m = matchLive(ctx, sheetProduct);
    let dp = sheetProduct;
    if (
      (m.live?.compact !== undefined || sheetProduct.identityOnly === true) &&
      m.live?.compact?.noopFor !== sheetProduct
    ) {
      throw new Error(
        `internal: the product on row ${sheetProduct.rows[0]?.rowNumber ?? '?'} was planned unchanged against another live product than the one it matches`,
      );
    }
    // A compact product was planned alone as unchanged: no stock of it is unknown.
    if (
      m.live?.compact === undefined &&
      !dp.invalid &&
      (dp.command === 'upsert' || dp.command === 'create' || dp.command === 'update')
    ) {
      const own = ownStockChoice(dp, options.stockUnknownByProduct);
      const read = readUnknownStock(
        dp,
        m.live,
        own?.mode ?? options.stockUnknown,
        options.platformExport === true,
        ctx.columnRefs,
      );
      dp = read.product;
      if (read.items > 0) {
        if (own !== undefined) {
          ownChoicesUsed.add(own.key);
          (unknownStock.byProduct ??= []).push({ product: labelOf(dp, m.live), mode: own.mode });
        } else if (options.stockUnknown === undefined) unchosen++;
        unknownStock.products++;
        unknownStock.items += read.items;
        if (unknownStock.examples.length < 20) unknownStock.examples.push(stockKeyOf(dp));
      }
    }
    if (m.live !== undefined) {
      const other = seen.get(m.live.id);
      if (other !== undefined) {
        const row = dp.rows[0] ?? { sheet: 'products', rowNumber: 0 };
        m.issues.push(
          planIssue(
            ctx,
            row,
            keyColumn(dp),
            'duplicate_match',
            `this product is the same store product (id ${m.live.id}) as the product on row ${other.rows[0]?.rowNumber ?? '?'}; merge their rows`,
          ),
        );
      } else seen.set(m.live.id, dp);
    }
    // A product to create gets its categories (map, default), counted once it is planned so.
    const creates =
      m.live === undefined && !dp.invalid && (dp.command === 'upsert' || dp.command === 'create');
    if (creates) dp = categories.give(dp);
    const entry = planOne(ctx, dp, m, replaceImages);
    if (entry.action === 'create') categories.count(dp, labelOf(dp));
    entries.push(entry);
  }
  let missingSkipped: string | undefined;
  if (missing !== 'ignore' && (options.unkeyedRows ?? 0) > 0) {
    missingSkipped = `--missing ${missing} not applied: ${options.unkeyedRows ?? 0} row(s) have no id, reference_id or sku, so absent products cannot be told apart from unreadable rows; fix those rows first`;
  } else if (missing !== 'ignore') {
    const reason = `missing from the sheet (--missing ${missing})`;
    for (const lp of live.products) {
      if (seen.has(lp.id)) continue;
      if (missing === 'hide') {
        if (lp.status !== 'HIDDEN') entries.push(planHide(undefined, lp, reason));
      } else entries.push(planDelete(undefined, lp, reason));
    }
  }
  const plan: ProductPlan = {
    format: 'merchant-bulk/product-plan',
    version: 1,
    decimals: options.decimals,
    options: { missing, replace: { ...ctx.replace, images: replaceImages } },
    liveCount: live.products.length,
    entries,
    summary: summarizePlan({ entries }),
  };
  if (missingSkipped !== undefined) plan.missingSkipped = missingSkipped;
  if (unknownStock.products > 0) {
    if (options.stockUnknown !== undefined) unknownStock.mode = options.stockUnknown;
    else if (unknownStock.byProduct !== undefined) unknownStock.unchosen = unchosen;
    plan.stockUnknown = unknownStock;
  }
  // A choice no product took (a typo, or a product whose stock is known by now): said, not fatal,
  // so that the same command line plans a re-import.
  const unused = [...(options.stockUnknownByProduct ?? [])].filter(([key]) => !ownChoicesUsed.has(key));
  if (unused.length > 0)
    plan.stockChoicesUnused = `--stock-unknown ${unused.map(([k, m]) => `"${k}=${m}"`).join(', ')}: no product of the sheet whose stock is unknown has ${unused.length === 1 ? 'that' : 'those'} reference_id, SKU or key; not used`;
  const categoryPlan = categories.finish();
  if (categoryPlan !== undefined) plan.categories = categoryPlan;
  if (ctx.spared > 0) {
    plan.stockSpared = `stock of ${ctx.spared} item${ctx.spared === 1 ? '' : 's'} left unchanged: ${ctx.spared === 1 ? 'it' : 'they'} changed in the store after this sheet was exported (${options.stockSince ?? '?'}), e.g. by sales since; pass --stock overwrite to write the sheet's quantities anyway`;
  }
  if (notReplaced.length > 0) {
    plan.replaceSkipped = `--replace not applied to ${notReplaced.join(' and ')}: rows without an id, reference_id or sku cannot be told apart from entries the sheet leaves out, which replacing would delete; entries absent from the sheet are kept. Fix those rows first`;
  }
  return plan;
}

/** The product's own `--stock-unknown KEY=MODE`, by its reference_id, SKU or key (in that order; stockKeyOf the first). */
function ownStockChoice(
  dp: DesiredProduct,
  byProduct: ReadonlyMap<string, StockUnknownMode> | undefined,
): { key: string; mode: StockUnknownMode } | undefined {
  if (byProduct === undefined || byProduct.size === 0) return undefined;
  for (const key of [dp.fields.reference_id, dp.fields.sku, dp.key.value]) {
    if (typeof key !== 'string') continue;
    const mode = byProduct.get(key);
    if (mode !== undefined) return { key, mode };
  }
  return undefined;
}

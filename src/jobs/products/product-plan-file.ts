import { z } from 'zod';
import type { SourceDescription } from '../../formats/source-description.js';
import { PRODUCT_SOURCE_FORMATS, type SkippedRow } from '../../formats/source-format.js';
import type { PriceJump } from '../../plan/price-jumps.js';
import type { FieldChange, ImageUpload, PlanEntry, ProductPlan } from '../../plan/product-plan.js';
import { Product, ProductCreate, ProductUpdate } from '../../schema/index.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { ColumnUseSchema, RowIssuesSchema, RunInputSchema, storeSchema } from '../runner/plan-file-parts.js';
import { planFileSchema, readPlanFile } from '../runner/plan-file.js';
import { StockUnknownSchema } from './stock-unknown-schema.js';

const PlanValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);

const FieldChangeSchema: z.ZodType<FieldChange> = z.looseObject({
  path: z.string(),
  before: PlanValueSchema,
  after: PlanValueSchema,
  money: z.literal(true).exactOptional(),
  note: z.enum(['added', 'removed', 'created']).exactOptional(),
});

const ImageUploadSchema: z.ZodType<ImageUpload> = z.looseObject({ index: z.number(), source: z.string() });

/** What every entry has. */
const entryFields = {
  key: z.string(),
  productId: z.string().nullable(),
  match: z.looseObject({ by: z.enum(['id', 'reference_id', 'sku']), value: z.string() }).nullable(),
  label: z.string(),
  expectedUpdatedAt: z.string().nullable(),
  changes: z.array(FieldChangeSchema),
  rows: z.array(z.looseObject({ sheet: z.string(), rowNumber: z.number() })),
  issues: RowIssuesSchema,
  imageUploads: z.array(ImageUploadSchema).exactOptional(),
  reason: z.string().exactOptional(),
};

/**
 * One entry of the plan, by what it writes: a create POSTs a ProductCreate, an update or a hide
 * PATCHes a ProductUpdate of a live product, a delete DELETEs one (the bodies checked by the API
 * schemas the planner checked them with, compiled once); the others write nothing.
 */
const PlanEntrySchema: z.ZodType<PlanEntry> = z.discriminatedUnion('action', [
  z.looseObject({
    ...entryFields,
    action: z.literal('create'),
    productId: z.null(),
    body: z.compile(ProductCreate.loose()),
  }),
  z.looseObject({
    ...entryFields,
    action: z.enum(['update', 'hide']),
    productId: z.string(),
    body: z.compile(ProductUpdate.loose()),
  }),
  z.looseObject({ ...entryFields, action: z.literal('delete'), productId: z.string() }),
  z.looseObject({ ...entryFields, action: z.enum(['noop', 'skip', 'invalid']) }),
]);

const ProductPlanSchema: z.ZodType<ProductPlan> = z.looseObject({
  format: z.literal('merchant-bulk/product-plan'),
  version: z.literal(1),
  decimals: z.number(),
  options: z.looseObject({
    missing: z.enum(['ignore', 'hide', 'delete']),
    replace: z.looseObject({
      variants: z.boolean(),
      options: z.boolean(),
      images: z.boolean().exactOptional(),
    }),
  }),
  stockSpared: z.string().exactOptional(),
  /** Products whose stock the sheet tracks without giving it: `--apply` refuses unless a mode was chosen. */
  stockUnknown: StockUnknownSchema.exactOptional(),
  liveCount: z.number(),
  entries: z.array(PlanEntrySchema),
  summary: z.looseObject({
    create: z.number(),
    update: z.number(),
    hide: z.number(),
    delete: z.number(),
    noop: z.number(),
    skip: z.number(),
    invalid: z.number(),
    total: z.number(),
  }),
  missingSkipped: z.string().exactOptional(),
  replaceSkipped: z.string().exactOptional(),
  stockChoicesUnused: z.string().exactOptional(),
});

const SourceDescriptionSchema: z.ZodType<SourceDescription> = z.looseObject({
  format: z.enum([...PRODUCT_SOURCE_FORMATS, 'map']),
  label: z.string(),
  detected: z.boolean(),
  hint: z.string().exactOptional(),
  headerRow: z.number(),
  columns: z.array(ColumnUseSchema),
});

const SkippedRowSchema: z.ZodType<SkippedRow> = z.looseObject({
  rowNumber: z.number(),
  code: z.string(),
  message: z.string(),
});

const PriceJumpSchema: z.ZodType<PriceJump> = z.looseObject({
  key: z.string(),
  label: z.string(),
  sheet: z.string().exactOptional(),
  rowNumber: z.number().exactOptional(),
  before: z.number().nullable(),
  after: z.number(),
  reason: z.enum(['ratio', 'median']),
  message: z.string(),
});

/** plan.json of a products run: what applying, drift, replan and the report read. Plain JSON. */
export const ProductPlanFileSchema = planFileSchema('products', {
  store: storeSchema({ currency: z.string() }),
  /** The products sheet (its copy in the run directory). */
  input: RunInputSchema,
  /** The options sheet: the workbook's `options` sheet (same copy) or a separate file's copy. */
  optionsInput: RunInputSchema.optional(),
  /** Sheet labels the plan's rows and issues carry. */
  sheets: z.looseObject({ products: z.string(), options: z.string().optional() }),
  read: z.looseObject({
    money: z.enum(['units', 'minor']),
    decimalComma: z.boolean(),
    blank: z.enum(['keep', 'clear']),
  }),
  /** The store's image memory file (source URL → stored URL). */
  imageMemoryFile: z.string(),
  rows: z.number(),
  plan: ProductPlanSchema,
  /** Issues that belong to no product (header warnings, rows without a key, orphan option rows). */
  issues: RowIssuesSchema,
  /** What the products sheet was read as (format, header row, each source column's use). */
  source: SourceDescriptionSchema.optional(),
  /** Source rows a format conversion left out on purpose (gift cards, grouped products…): left_out in results.csv. */
  skippedRows: z.array(SkippedRowSchema).optional(),
  /** The live product as read when planning, for every product an update/hide/delete touches (backup). */
  before: z.record(z.string(), Product),
  /** Set when the guardrail refused the plan. */
  refusal: z.string().optional(),
  /**
   * Suspicious prices (×10 or more, or over 10× the catalog's median): `--apply` and `mbulk apply`
   * refuse the plan unless `--allow-price-jumps`.
   */
  priceJumps: z.array(PriceJumpSchema).optional(),
});
export type ProductPlanFile = z.infer<typeof ProductPlanFileSchema>;

/** What an operation's journal record keeps. */
export interface ProductOpResult {
  id: string;
  /** Image source URL → stored URL learned from the answer. */
  images?: [string, string][];
}

/** Reads a run's plan.json as a products plan, validated (a damaged or foreign plan: DamagedPlanError). */
export function readProductPlan(run: RunDirectory): ProductPlanFile {
  return readPlanFile(run, ProductPlanFileSchema);
}

import { z } from 'zod';
import type { SkippedRow } from '../../formats/source-format.js';
import type { SourceDescription } from '../../formats/source-description.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import type { PriceJump } from '../../plan/price-jumps.js';
import type { ProductPlan } from '../../plan/product-plan.js';
import type { Product } from '../../schema/index.js';
import type { RunInput } from '../run-input.js';
import { listOf, RowIssuesSchema, RunInputSchema, StoreSchema } from '../runner/plan-file-parts.js';
import { planFileSchema, readPlanFile } from '../runner/plan-file.js';
import type { RunDirectory } from '../../apply/run-directory.js';

/** plan.json of a products run. Plain JSON: a new process can apply or resume it. */
export interface ProductPlanFile {
  kind: 'products';
  version: 1;
  store: { id: string; name: string; currency: string };
  /** The products sheet (its copy in the run directory). */
  input: RunInput;
  /** The options sheet: the workbook's `options` sheet (same copy) or a separate file's copy. */
  optionsInput?: RunInput;
  /** Sheet labels the plan's rows and issues carry. */
  sheets: { products: string; options?: string };
  read: { money: 'units' | 'minor'; decimalComma: boolean; blank: 'keep' | 'clear' };
  /** The store's image memory file (source URL → stored URL). */
  imageMemoryFile: string;
  rows: number;
  plan: ProductPlan;
  /** Issues that belong to no product (header warnings, rows without a key, orphan option rows). */
  issues: RowIssue[];
  /** What the products sheet was read as (format, header row, each source column's use). */
  source?: SourceDescription;
  /** Source rows a format conversion left out on purpose (gift cards, grouped products…): left_out in results.csv. */
  skippedRows?: SkippedRow[];
  /** The live product as read when planning, for every product an update/hide/delete touches (backup). */
  before: Record<string, Product>;
  /** Set when the guardrail refused the plan. */
  refusal?: string;
  /**
   * Suspicious prices (×10 or more, or over 10× the catalog's median): `--apply` and `mbulk apply`
   * refuse the plan unless `--allow-price-jumps`.
   */
  priceJumps?: PriceJump[];
}

/** What an operation's journal record keeps. */
export interface ProductOpResult {
  id: string;
  /** Image source URL → stored URL learned from the answer. */
  images?: [string, string][];
}

/** What applying, drift and replanning read of a products plan.json. */
export const ProductPlanFileSchema = planFileSchema('products', {
  store: StoreSchema,
  input: RunInputSchema,
  optionsInput: RunInputSchema.optional(),
  sheets: z.looseObject({ products: z.string(), options: z.string().optional() }),
  read: z.looseObject({
    money: z.enum(['units', 'minor']),
    decimalComma: z.boolean(),
    blank: z.enum(['keep', 'clear']),
  }),
  imageMemoryFile: z.string(),
  rows: z.number(),
  plan: z.looseObject({
    format: z.literal('merchant-bulk/product-plan'),
    liveCount: z.number(),
    entries: listOf({
      action: z.string(),
      key: z.string(),
      label: z.string(),
      productId: z.string().nullable(),
      rows: listOf({ sheet: z.string(), rowNumber: z.number() }),
      issues: RowIssuesSchema,
    }),
  }),
  issues: RowIssuesSchema,
  before: z.record(z.string(), z.looseObject({ id: z.string() })),
  refusal: z.string().optional(),
  priceJumps: z.array(z.looseObject({ message: z.string() })).optional(),
});

/** Reads a run's plan.json as a products plan, validated (a damaged or foreign plan: DamagedPlanError). */
export function readProductPlan(run: RunDirectory): ProductPlanFile {
  return readPlanFile<ProductPlanFile>(run, ProductPlanFileSchema);
}

/**
 * The data of a run's review page (`report.html`): plain JSON, the same for every kind of run
 * (products, stock, customers, templates, messages, rollbacks). Builders turn a plan into it;
 * `renderReviewHtml` turns it into one self-contained HTML file. Every string here is shown as
 * text, never as markup.
 */

/**
 * How a table column is drawn and what the big-plan table's filters read: `before` cells in red,
 * `after` cells in green, `delta` the signed change, `outcome` what an apply did (done, pending,
 * failed: reason).
 */
export type ReviewColumnRole = 'before' | 'after' | 'delta' | 'outcome';

export interface ReviewColumn {
  label: string;
  role?: ReviewColumnRole;
}

/** One line of a card's table. `added` rows are green, `removed` rows red (whole variant, option…). */
export interface ReviewRow {
  cells: string[];
  tone?: 'added' | 'removed';
}

/** One entity (product, inventory item, customer, template, message): one card on the page. */
export interface ReviewCard {
  /** `create`, `update`, `unchanged`, `hide`, `delete`, `invalid`, `skip`, `send`, `restore`… (filter buttons). */
  action: string;
  name: string;
  /** How the sheet or the store identifies it: reference id, SKU, phone. */
  key: string;
  /** Image URLs, shown as lazy-loaded thumbnails (http and https only). */
  images?: string[];
  /** Table body, in the page's `columns`. */
  rows?: ReviewRow[];
  /** Preformatted text, e.g. the rendered message a recipient gets. */
  preview?: string;
  /** Warnings, errors and reasons, one line each. */
  notes?: string[];
  /** Why applying refuses this entity's change (a price jump): the card is marked. */
  refused?: string;
  /** What an apply did with it: `done`, `pending` (not reached: resume), `failed: reason`. */
  outcome?: string;
}

/** A sheet row that cannot be applied, pointing at its cell. */
export interface ReviewInvalidRow {
  file: string;
  row: number;
  column?: string;
  header?: string;
  code?: string;
  message: string;
}

/**
 * Cards a builder makes at most (a million-row stock plan must not build a million cards); the
 * renderer also stops embedding cards past a byte budget. The page says how many it holds.
 */
export const MAX_REVIEW_CARDS = 200_000;

/** A guardrail that refuses the plan (or would refuse `mbulk apply RUN`), with the exact way out. */
export interface ReviewRefusal {
  /** What is refused and why, e.g. `3 suspicious price changes (×10 or more…)`. */
  message: string;
  /** The exact flag or fix: `mbulk apply RUN --allow-price-jumps`, `fix the sheet…`. */
  fix: string;
}

/**
 * Many-row plans (stock) as one table instead of cards: rows of plain cells (numbers stay
 * numbers, so the page sorts and filters them), with totals. The page pages through the rows.
 */
export interface ReviewTable {
  columns: ReviewColumn[];
  rows: (string | number)[][];
  /** Shown above the table, e.g. [`items up`, 120], [`units added`, 950]. */
  totals: [label: string, value: number][];
}

/** The job-specific part of a page: what each kind of run builds from its plan. */
export interface ReviewBody {
  /** Refusals and guards, shown first, in red, each with the exact flag or fix. */
  refusals?: ReviewRefusal[];
  /** Warnings and neutral notes, shown below the counts. */
  notes?: string[];
  /**
   * The exact command that applies the plan (absent once applied, and when no command would
   * apply it): with the flag a refusal needs (`--allow-price-jumps`) when there is one.
   */
  applyCommand?: string;
  /** The command that continues an interrupted or failed run (`mbulk runs resume RUN`). */
  resumeCommand?: string;
  /** The counts of this state only (planned, or done), replacing the report's counts on the page. */
  counts?: [label: string, count: number][];
  /** Many-row plans: one table (the cards hold the rest: skipped rows…). */
  table?: ReviewTable;
  /** Card table columns for this kind (products: field, before, after; stock: SKU, before, after, delta). */
  columns: ReviewColumn[];
  cards: ReviewCard[];
  /** Entities in the plan when `cards` holds only the first of them (default: cards.length). */
  totalCards?: number;
  invalid: ReviewInvalidRow[];
  /** Where the invalid and failed rows are written, relative to the page (`failed.csv`), and whether it exists yet. */
  failedFile?: { href: string; written: boolean };
}

export interface ReviewPage extends ReviewBody {
  /** e.g. `Import products`. */
  title: string;
  runId?: string;
  /** ISO time the run was created. */
  createdAt?: string;
  /** Key facts: input file, store, target (sandbox or URL, never a token), status, options… */
  facts: [label: string, value: string][];
  /** Counts in order: create, update, unchanged, hide, delete, invalid, skipped… */
  counts: [label: string, count: number][];
}

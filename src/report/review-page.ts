/**
 * The data of a run's review page (`report.html`): plain JSON, the same for every kind of run
 * (products, stock, customers, templates, messages, rollbacks). Builders turn a plan into it;
 * `renderReviewHtml` turns it into one self-contained HTML file. Every string here is shown as
 * text, never as markup.
 */

/** How a table column is drawn: `before` cells struck through in red, `after` cells in green. */
export type ReviewColumnRole = 'before' | 'after' | 'delta';

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

/** The job-specific part of a page: what each kind of run builds from its plan. */
export interface ReviewBody {
  /** Guardrail refusals and warnings, shown prominently at the top. */
  notes?: string[];
  /** The exact command that applies the plan (absent once applied). */
  applyCommand?: string;
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

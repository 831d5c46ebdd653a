import type { DesiredOption, DesiredVariantFields, ProductCommand, SourceRow } from './product-desired.js';
import type { RowIssue } from './row-issue.js';

/** The rows of one product of the sheet, while the mapper collects them. */
export interface ProductGroup {
  order: number;
  id: string | undefined;
  ref: string | undefined;
  sku: string | undefined;
  command: ProductCommand | undefined;
  commandRow: number;
  /** Product values by column slot (index in productCols): arrays beat keyed object access here. */
  values: unknown[];
  valueRows: number[];
  variants: { fields: DesiredVariantFields; row: SourceRow }[];
  options: DesiredOption[] | undefined;
  rows: SourceRow[];
  issues: RowIssue[];
  invalid: boolean;
  /** The row that made the product (its first row), read while its rows are parked. */
  firstRow: number;
  /** The platform's categories of its first row that has any (a converted sheet's, for --category-map). */
  sourceCategories?: string[] | undefined;
  /**
   * Set while the product is parked (see parkGroup): its values, variants, options and rows are
   * then one text of a PackedTexts (this number), and its arrays are empty and frozen until it is
   * unparked.
   */
  packed?: number | undefined;
}

/**
 * Records an issue on the product; an error makes the whole product invalid. The same problem of
 * the same cell is recorded once: a platform export's price cell feeds both the variant's price
 * and the product's (its lowest), and a bad one is one mistake.
 */
export function failGroup(group: ProductGroup, issue: RowIssue): void {
  if (issue.severity === 'error') group.invalid = true;
  const same = group.issues.some(
    (i) =>
      i.column !== undefined &&
      i.column === issue.column &&
      i.rowNumber === issue.rowNumber &&
      i.sheet === issue.sheet &&
      i.code === issue.code,
  );
  if (!same) group.issues.push(issue);
}

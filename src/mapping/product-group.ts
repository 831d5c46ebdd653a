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
}

/** Records an issue on the product; an error makes the whole product invalid. */
export function failGroup(group: ProductGroup, issue: RowIssue): void {
  group.issues.push(issue);
  if (issue.severity === 'error') group.invalid = true;
}

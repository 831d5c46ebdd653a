import type { SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { cellIssue, type BoundColumn, type KeyColumns } from './bound-column.js';
import { OPTION_COLUMN_ALIASES, OPTION_SHEET_COLUMNS, resolveColumns } from './column-aliases.js';
import type { OptionSheetColumn } from './column-aliases.js';
import { columnHeaderIssues } from './column-header-issues.js';
import { OPTION_FIELD_OF, buildOptionDecoders, type OptionCellDecoder } from './options-row-decoder.js';
import { buildProductColumnSpecs, type ColumnSpec } from './product-cell-decoders.js';
import type { ColumnRefs, DesiredOption, ProductMappingOptions } from './product-desired.js';
import { failGroup, type ProductGroup } from './product-group.js';
import type { RowIssue } from './row-issue.js';

interface BoundOptionColumn {
  column: OptionSheetColumn;
  field: keyof DesiredOption;
  decode: OptionCellDecoder;
  key: string;
  letter: string;
  header: string;
}

/**
 * The options sheet of a product import: its header (key columns naming the product, option
 * columns) and how one of its rows becomes a DesiredOption of the product it names.
 */
export class OptionsSheetColumns {
  /** The columns naming each option's product. */
  readonly keyCols: KeyColumns = {};
  private readonly cols: BoundOptionColumn[] = [];

  /**
   * Binds the header. Header problems are pushed onto `headerIssues` and the option columns'
   * positions onto `columnRefs` (both shared with the products sheet).
   */
  constructor(
    columns: readonly SheetColumn[],
    sheet: string,
    options: ProductMappingOptions,
    headerIssues: RowIssue[],
    columnRefs: ColumnRefs,
  ) {
    const resolved = resolveColumns<OptionSheetColumn>(columns, OPTION_SHEET_COLUMNS, OPTION_COLUMN_ALIASES);
    const rowNumber = options.headerRowNumber ?? 1;
    headerIssues.push(...columnHeaderIssues(sheet, rowNumber, resolved.unknown, resolved.duplicates));
    const decoders = buildOptionDecoders(options);
    const specs = buildProductColumnSpecs(options);
    for (const [column, sc] of resolved.byField) {
      const base = { key: sc.key, letter: sc.letter, header: sc.header };
      if (column === 'id' || column === 'reference_id' || column === 'sku') {
        const bound: BoundColumn = { spec: specs.get(column) as ColumnSpec, ...base };
        if (column === 'id') this.keyCols.id = bound;
        else if (column === 'reference_id') this.keyCols.ref = bound;
        else this.keyCols.sku = bound;
        continue;
      }
      columnRefs[column] = { letter: sc.letter, header: sc.header };
      const field = OPTION_FIELD_OF[column];
      const decode = decoders.get(column);
      if (field !== undefined && decode !== undefined) this.cols.push({ column, field, decode, ...base });
    }
    if (!this.keyCols.id && !this.keyCols.ref && !this.keyCols.sku) {
      headerIssues.push({
        severity: 'error',
        code: 'missing_key_column',
        message:
          'the options sheet needs an id, reference_id or sku column naming the product of each option',
        sheet,
        rowNumber,
      });
    }
    if (!resolved.byField.has('option_text') && !resolved.byField.has('option_id')) {
      headerIssues.push({
        severity: 'error',
        code: 'missing_option_column',
        message: 'the options sheet needs an option_text column (or option_id) naming each option',
        sheet,
        rowNumber,
      });
    }
  }

  /**
   * Decodes one (whole) row of the options sheet into an option of `group`, the product it
   * names; bad cells, a missing option text and an option listed twice are issues of the product.
   */
  addTo(group: ProductGroup, row: SheetRow): void {
    const option: DesiredOption = { row: { sheet: row.sheet, rowNumber: row.rowNumber } };
    const o = option as unknown as Record<string, unknown>;
    for (const col of this.cols) {
      const r = col.decode(row.cells[col.key] ?? null);
      if (r === undefined) continue;
      if (!r.ok) {
        failGroup(group, cellIssue(row, col, r.code, `${col.column}: ${r.message}`));
        continue;
      }
      o[col.field] = r.value;
    }
    group.rows.push(option.row);
    if (option.id === undefined && option.text === undefined) {
      failGroup(
        group,
        cellIssue(
          row,
          this.cols.find((c) => c.column === 'option_text'),
          'missing_option_text',
          'write the option text (its label), or option_id for an existing option',
        ),
      );
      return;
    }
    const list = (group.options ??= []);
    const textKey = option.text?.toLowerCase();
    const clash = list.find(
      (other) =>
        (option.id !== undefined && other.id === option.id) ||
        (textKey !== undefined && other.text?.toLowerCase() === textKey),
    );
    if (clash !== undefined) {
      failGroup(
        group,
        cellIssue(
          row,
          this.cols.find((c) => c.column === (option.id !== undefined ? 'option_id' : 'option_text')),
          'duplicate_option',
          `this product already has option "${clash.text ?? clash.id ?? ''}" on row ${clash.row.rowNumber}; list each option once`,
        ),
      );
      return;
    }
    list.push(option);
  }
}

import { TrimmedCells } from './trimmed-cells.js';
import { cellText } from '../sheets/cell-result.js';
import { cutShortIssue } from './cut-short-row.js';
import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import {
  OPTION_COLUMN_ALIASES,
  OPTION_SHEET_COLUMNS,
  PRODUCT_COLUMN_ALIASES,
  PRODUCT_SHEET_COLUMNS,
  resolveColumns,
} from './column-aliases.js';
import type { OptionSheetColumn, ProductSheetColumn } from './column-aliases.js';
import { OPTION_FIELD_OF, buildOptionDecoders } from './options-row-decoder.js';
import type { OptionCellDecoder } from './options-row-decoder.js';
import { CellFailure, buildProductColumnSpecs } from './product-cell-decoders.js';
import type { ColumnSpec } from './product-cell-decoders.js';
import type {
  ColumnRefs,
  DesiredOption,
  DesiredProduct,
  DesiredProductFields,
  DesiredVariantFields,
  ProductCommand,
  ProductKey,
  ProductMapping,
  ProductMappingOptions,
  SourceRow,
} from './product-desired.js';
import type { RowIssue } from './row-issue.js';

interface BoundColumn {
  spec: ColumnSpec;
  key: string;
  letter: string;
  header: string;
}

interface BoundOptionColumn {
  column: OptionSheetColumn;
  field: keyof DesiredOption;
  decode: OptionCellDecoder;
  key: string;
  letter: string;
  header: string;
}

interface Group {
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

const KEY_LABEL = { id: 'id', ref: 'reference_id', sku: 'sku' } as const;
const MAX_VALUE_TEXT = 200;

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  return false;
}

function show(value: unknown): string {
  return Array.isArray(value) ? value.join('|') : String(value);
}

function valueText(raw: CellValue | undefined): string {
  const t = cellText(raw);
  return t.length > MAX_VALUE_TEXT ? `${t.slice(0, MAX_VALUE_TEXT)}…` : t;
}

/**
 * Maps the products sheet (and optionally the options sheet) into DesiredProduct objects,
 * incrementally: construct it from the header, feed every row with `addRow` (then the options
 * sheet with `setOptionColumns` + `addOptionRow`), and call `finish()` once.
 *
 * Rows sharing a product key form one product: a row joins the product that already holds its
 * `id`, else its `reference_id`, else its `sku`; its other identifiers must agree with that
 * product. Non-adjacent rows of one product are fine. Product columns may be blank on a product's
 * later rows; two different non-blank values are an error on the later row. A row with variant
 * cells (any `variant_*` column filled) is one variant. Every problem is collected as a RowIssue.
 */
export class ProductSheetMapper {
  private readonly options: ProductMappingOptions;
  private readonly keyCols: { id?: BoundColumn; ref?: BoundColumn; sku?: BoundColumn } = {};
  private commandCol: BoundColumn | undefined;
  private readonly productCols: BoundColumn[] = [];
  private readonly variantCols: BoundColumn[] = [];
  private variantIdCol: BoundColumn | undefined;
  private variantSkuCol: BoundColumn | undefined;
  private unkeyedRows = 0;
  private unkeyedOptionRows = 0;
  private readonly clearMode: boolean;
  private readonly groups: Group[] = [];
  private readonly byId = new Map<string, Group>();
  private readonly byRef = new Map<string, Group>();
  private readonly bySku = new Map<string, Group>();
  private readonly variantIds = new Map<string, number>();
  private readonly variantSkus = new Map<string, { group: Group; row: number; col: BoundColumn }>();
  private readonly looseIssues: RowIssue[] = [];
  /** id / reference_id / sku / variant_sku cells read trimmed: one warning per column, never silent. */
  private readonly trimmed = new TrimmedCells();
  private readonly headerIssues: RowIssue[] = [];
  private readonly pendingOptionRows: SheetRow[] = [];
  private optionCols: BoundOptionColumn[] = [];
  private optionKeyCols: { id?: BoundColumn; ref?: BoundColumn; sku?: BoundColumn } = {};
  private readonly presentColumns: string[] = [];
  private readonly columnRefs: ColumnRefs = {};
  private rowCount = 0;

  constructor(columns: readonly SheetColumn[], options: ProductMappingOptions) {
    this.options = options;
    this.clearMode = options.blank === 'clear';
    const specs = buildProductColumnSpecs(options);
    const sheet = options.sheetName ?? 'products';
    const resolved = resolveColumns<ProductSheetColumn>(
      columns,
      PRODUCT_SHEET_COLUMNS,
      PRODUCT_COLUMN_ALIASES,
    );
    this.reportHeader(sheet, resolved.unknown, resolved.duplicates);
    for (const [column, sheetColumn] of resolved.byField) {
      const spec = specs.get(column) as ColumnSpec;
      const bound: BoundColumn = {
        spec,
        key: sheetColumn.key,
        letter: sheetColumn.letter,
        header: sheetColumn.header,
      };
      this.presentColumns.push(column);
      this.columnRefs[column] = { letter: sheetColumn.letter, header: sheetColumn.header };
      switch (spec.level) {
        case 'command':
          this.commandCol = bound;
          break;
        case 'key':
          if (column === 'id') this.keyCols.id = bound;
          else if (column === 'reference_id') this.keyCols.ref = bound;
          else this.keyCols.sku = bound;
          break;
        case 'product':
          this.productCols.push(bound);
          break;
        case 'variant':
          this.variantCols.push(bound);
          if (column === 'variant_id') this.variantIdCol = bound;
          if (column === 'variant_sku') this.variantSkuCol = bound;
          break;
      }
    }
    if (!this.keyCols.id && !this.keyCols.ref && !this.keyCols.sku) {
      this.headerIssues.push({
        severity: 'error',
        code: 'missing_key_column',
        message: 'the sheet needs an id, reference_id or sku column so each row can be matched to a product',
        sheet,
        rowNumber: options.headerRowNumber ?? 1,
      });
    }
  }

  private reportHeader(
    sheet: string,
    unknown: readonly SheetColumn[],
    duplicates: readonly { column: SheetColumn; field: string; first: SheetColumn }[],
  ): void {
    const rowNumber = this.options.headerRowNumber ?? 1;
    for (const col of unknown) {
      this.headerIssues.push({
        severity: 'warning',
        code: 'unknown_column',
        message: `column "${col.header}" is not a known column and is ignored; rename it to a field name such as price or variant_sku if it should be imported`,
        sheet,
        rowNumber,
        column: col.letter,
        header: col.header,
      });
    }
    for (const d of duplicates) {
      this.headerIssues.push({
        severity: 'error',
        code: 'duplicate_column',
        message: `column "${d.column.header}" means ${d.field}, like column ${d.first.letter} ("${d.first.header}"); keep only one of them`,
        sheet,
        rowNumber,
        column: d.column.letter,
        header: d.column.header,
      });
    }
  }

  private issue(
    row: SheetRow,
    col: { letter: string; header: string; key: string } | undefined,
    code: string,
    message: string,
    severity: 'error' | 'warning' = 'error',
  ): RowIssue {
    const issue: RowIssue = { severity, code, message, sheet: row.sheet, rowNumber: row.rowNumber };
    if (col !== undefined) {
      issue.column = col.letter;
      issue.header = col.header;
      const raw = row.cells[col.key];
      if (raw !== undefined && raw !== null && raw !== '') issue.value = valueText(raw);
    }
    return issue;
  }

  private fail(group: Group, issue: RowIssue): void {
    group.issues.push(issue);
    if (issue.severity === 'error') group.invalid = true;
  }

  private decodeKey(row: SheetRow, col: BoundColumn | undefined): string | undefined {
    if (col === undefined) return undefined;
    const raw = row.cells[col.key];
    if (raw === '' || raw === null || raw === undefined) return undefined;
    const r = col.spec.decode(raw);
    if (typeof r !== 'string') return undefined;
    if (typeof raw === 'string' && r.length !== raw.length) this.trimmed.note(col, row.sheet, row.rowNumber);
    return r;
  }

  /** Finds (or creates) the product of a row from its identifiers; reports key clashes. */
  private groupOf(
    row: SheetRow,
    id: string | undefined,
    ref: string | undefined,
    sku: string | undefined,
    cols: { id?: BoundColumn; ref?: BoundColumn; sku?: BoundColumn },
    create: boolean,
  ): Group | undefined {
    const gId = id === undefined ? undefined : this.byId.get(id);
    const gRef = ref === undefined ? undefined : this.byRef.get(ref);
    const gSku = sku === undefined ? undefined : this.bySku.get(sku);
    // A lower-priority identifier only leads to a product that has no higher-priority one of its own
    // (a row `R2,K` does not join the product `R1,K`: that is a duplicate sku, not the same product).
    let group = gId;
    if (group === undefined && gRef !== undefined && (id === undefined || gRef.id === undefined))
      group = gRef;
    if (
      group === undefined &&
      gSku !== undefined &&
      (id === undefined || gSku.id === undefined) &&
      (ref === undefined || gSku.ref === undefined)
    ) {
      group = gSku;
    }
    if (group === undefined) {
      if (!create) return undefined;
      const g: Group = {
        order: this.groups.length,
        id,
        ref,
        sku,
        command: undefined,
        commandRow: 0,
        values: new Array<unknown>(this.productCols.length),
        valueRows: [],
        variants: [],
        options: undefined,
        rows: [],
        issues: [],
        invalid: false,
      };
      this.groups.push(g);
      this.claimKey(row, g, 'id', id, gId, cols);
      this.claimKey(row, g, 'ref', ref, gRef, cols);
      this.claimKey(row, g, 'sku', sku, gSku, cols);
      return g;
    }
    // Fast path: the row repeats exactly the identifiers its product already has.
    if (group.id === id && group.ref === ref && group.sku === sku) return group;
    this.checkKey(row, group, 'id', id, gId, cols);
    this.checkKey(row, group, 'ref', ref, gRef, cols);
    this.checkKey(row, group, 'sku', sku, gSku, cols);
    return group;
  }

  private indexOf(which: 'id' | 'ref' | 'sku'): Map<string, Group> {
    return which === 'id' ? this.byId : which === 'ref' ? this.byRef : this.bySku;
  }

  /** A new product takes its identifiers unless another product already holds one. */
  private claimKey(
    row: SheetRow,
    g: Group,
    which: 'id' | 'ref' | 'sku',
    value: string | undefined,
    taken: Group | undefined,
    cols: { id?: BoundColumn; ref?: BoundColumn; sku?: BoundColumn },
  ): void {
    if (value === undefined) return;
    if (taken === undefined) {
      this.indexOf(which).set(value, g);
      return;
    }
    const label = KEY_LABEL[which];
    this.fail(
      g,
      this.issue(
        row,
        cols[which],
        `duplicate_${label}`,
        `${label} "${value}" already belongs to another product (row ${taken.rows[0]?.rowNumber ?? '?'}); each product needs its own ${label}`,
      ),
    );
  }

  /** A later row of a product: each identifier it gives must be the product's (or new to it). */
  private checkKey(
    row: SheetRow,
    g: Group,
    which: 'id' | 'ref' | 'sku',
    value: string | undefined,
    registered: Group | undefined,
    cols: { id?: BoundColumn; ref?: BoundColumn; sku?: BoundColumn },
  ): void {
    if (value === undefined) return;
    const label = KEY_LABEL[which];
    if (registered !== undefined && registered !== g) {
      this.claimKey(row, g, which, value, registered, cols);
      return;
    }
    const current = g[which];
    if (current === undefined) {
      g[which] = value;
      this.indexOf(which).set(value, g);
    } else if (current !== value) {
      this.fail(
        g,
        this.issue(
          row,
          cols[which],
          'conflicting_key',
          `this row joins the product of row ${g.rows[0]?.rowNumber ?? '?'} (same ${this.keyName(g, which)}) whose ${label} is "${current}", not "${value}"; write the same ${label} on every row of a product`,
        ),
      );
    }
  }

  private keyName(g: Group, except: 'id' | 'ref' | 'sku'): string {
    if (except !== 'id' && g.id !== undefined) return `id ${g.id}`;
    if (except !== 'ref' && g.ref !== undefined) return `reference_id ${g.ref}`;
    if (except !== 'sku' && g.sku !== undefined) return `sku ${g.sku}`;
    return 'key';
  }

  /** Feeds one data row of the products sheet. */
  addRow(row: SheetRow): void {
    this.rowCount++;
    const id = this.decodeKey(row, this.keyCols.id);
    const ref = this.decodeKey(row, this.keyCols.ref);
    const sku = this.decodeKey(row, this.keyCols.sku);
    if (row.cutShort === true) {
      // A cut row never contributes values (a cut price is a wrong price); its product, if the key
      // survived, is invalid as a whole.
      const issue = cutShortIssue(row);
      const group =
        id === undefined && ref === undefined && sku === undefined
          ? undefined
          : this.groupOf(row, id, ref, sku, this.keyCols, true);
      if (group === undefined) {
        this.unkeyedRows++;
        this.looseIssues.push(issue);
      } else {
        this.fail(group, issue);
        group.rows.push({ sheet: row.sheet, rowNumber: row.rowNumber });
      }
      return;
    }
    if (id === undefined && ref === undefined && sku === undefined) {
      this.unkeyedRows++;
      this.looseIssues.push(
        this.issue(
          row,
          this.keyCols.ref ?? this.keyCols.sku ?? this.keyCols.id,
          'missing_product_key',
          'write the product id, reference_id or sku on this row (repeat it on every variant row of the product)',
        ),
      );
      return;
    }
    const group = this.groupOf(row, id, ref, sku, this.keyCols, true) as Group;
    const cells = row.cells;

    const cmdCol = this.commandCol;
    if (cmdCol !== undefined) {
      const r = cmdCol.spec.decode(cells[cmdCol.key] ?? null);
      if (r !== undefined) {
        if (r instanceof CellFailure)
          this.fail(group, this.issue(row, cmdCol, r.code, `command: ${r.message}`));
        else if (group.command === undefined) {
          group.command = r as ProductCommand;
          group.commandRow = row.rowNumber;
        } else if (group.command !== r) {
          this.fail(
            group,
            this.issue(
              row,
              cmdCol,
              'conflicting_value',
              `command is "${group.command}" on row ${group.commandRow} of this product but "${String(r)}" here; write one command per product (or leave it blank on later rows)`,
            ),
          );
        }
      }
    }

    const values = group.values;
    const productCols = this.productCols;
    for (let i = 0; i < productCols.length; i++) {
      const col = productCols[i] as BoundColumn;
      const raw = cells[col.key];
      if (raw === '' || raw === null || raw === undefined) continue;
      const r = col.spec.decode(raw);
      if (r === undefined) continue;
      if (r instanceof CellFailure) {
        this.fail(group, this.issue(row, col, r.code, `${col.spec.column}: ${r.message}`));
        continue;
      }
      const prev = values[i];
      if (prev === undefined) {
        values[i] = r;
        group.valueRows[i] = row.rowNumber;
      } else if (!sameValue(prev, r)) {
        this.fail(
          group,
          this.issue(
            row,
            col,
            'conflicting_value',
            `${col.spec.column} is "${show(prev)}" on row ${group.valueRows[i] ?? '?'} of this product but "${show(r)}" here; product columns must be equal on every row of a product (or left blank on later rows)`,
          ),
        );
      }
    }

    const source: SourceRow = { sheet: row.sheet, rowNumber: row.rowNumber };
    if (this.variantCols.length > 0) this.addVariant(row, group, source);
    group.rows.push(source);
  }

  private addVariant(row: SheetRow, group: Group, source: SourceRow): void {
    const cells = row.cells;
    let mentioned = false;
    let variant: Record<string, unknown> | undefined;
    const variantCols = this.variantCols;
    for (let i = 0; i < variantCols.length; i++) {
      const col = variantCols[i] as BoundColumn;
      const raw = cells[col.key];
      if (raw === '' || raw === null || raw === undefined) continue;
      const r = col.spec.decode(raw);
      if (r === undefined) continue;
      mentioned = true;
      if (
        col === this.variantSkuCol &&
        typeof r === 'string' &&
        typeof raw === 'string' &&
        r.length !== raw.length
      )
        this.trimmed.note(col, row.sheet, row.rowNumber);
      if (r instanceof CellFailure) {
        this.fail(group, this.issue(row, col, r.code, `${col.spec.column}: ${r.message}`));
        continue;
      }
      (variant ??= {})[col.spec.field] = r;
    }
    if (!mentioned) return;
    const fields = (variant ?? {}) as DesiredVariantFields & Record<string, unknown>;
    if (this.clearMode) {
      for (const col of this.variantCols) {
        if (col.spec.clear !== undefined && fields[col.spec.field] === undefined) {
          fields[col.spec.field] = col.spec.clear;
        }
      }
    }
    if (fields.id !== undefined) {
      const seen = this.variantIds.get(fields.id);
      if (seen !== undefined) {
        this.fail(
          group,
          this.issue(
            row,
            this.variantIdCol,
            'duplicate_variant_id',
            `variant_id "${fields.id}" is already on row ${seen}; each variant appears once`,
          ),
        );
      } else this.variantIds.set(fields.id, row.rowNumber);
    }
    if (fields.sku !== undefined) {
      const col = this.variantSkuCol as BoundColumn;
      const seen = this.variantSkus.get(fields.sku);
      if (seen !== undefined) {
        this.fail(
          group,
          this.issue(
            row,
            col,
            'duplicate_variant_sku',
            `variant_sku "${fields.sku}" is already used on row ${seen.row}; every variant needs its own sku`,
          ),
        );
      } else this.variantSkus.set(fields.sku, { group, row: row.rowNumber, col });
    }
    group.variants.push({ fields, row: source });
  }

  /** Declares the options sheet's header (call before addOptionRow). */
  setOptionColumns(columns: readonly SheetColumn[], sheet = 'options'): void {
    const resolved = resolveColumns<OptionSheetColumn>(columns, OPTION_SHEET_COLUMNS, OPTION_COLUMN_ALIASES);
    this.reportHeader(sheet, resolved.unknown, resolved.duplicates);
    const decoders = buildOptionDecoders(this.options);
    const specs = buildProductColumnSpecs(this.options);
    this.optionCols = [];
    this.optionKeyCols = {};
    for (const [column, sc] of resolved.byField) {
      const base = { key: sc.key, letter: sc.letter, header: sc.header };
      if (column === 'id' || column === 'reference_id' || column === 'sku') {
        const bound: BoundColumn = { spec: specs.get(column) as ColumnSpec, ...base };
        if (column === 'id') this.optionKeyCols.id = bound;
        else if (column === 'reference_id') this.optionKeyCols.ref = bound;
        else this.optionKeyCols.sku = bound;
        continue;
      }
      this.columnRefs[column] = { letter: sc.letter, header: sc.header };
      const field = OPTION_FIELD_OF[column];
      const decode = decoders.get(column);
      if (field !== undefined && decode !== undefined)
        this.optionCols.push({ column, field, decode, ...base });
    }
    const rowNumber = this.options.headerRowNumber ?? 1;
    if (!this.optionKeyCols.id && !this.optionKeyCols.ref && !this.optionKeyCols.sku) {
      this.headerIssues.push({
        severity: 'error',
        code: 'missing_key_column',
        message:
          'the options sheet needs an id, reference_id or sku column naming the product of each option',
        sheet,
        rowNumber,
      });
    }
    if (!resolved.byField.has('option_text') && !resolved.byField.has('option_id')) {
      this.headerIssues.push({
        severity: 'error',
        code: 'missing_option_column',
        message: 'the options sheet needs an option_text column (or option_id) naming each option',
        sheet,
        rowNumber,
      });
    }
  }

  /** Feeds one data row of the options sheet (resolved against the products in finish()). */
  addOptionRow(row: SheetRow): void {
    this.rowCount++;
    this.pendingOptionRows.push(row);
  }

  private resolveOptionRow(row: SheetRow): void {
    const cols = this.optionKeyCols;
    const id = this.decodeKey(row, cols.id);
    const ref = this.decodeKey(row, cols.ref);
    const sku = this.decodeKey(row, cols.sku);
    if (row.cutShort === true && id === undefined && ref === undefined && sku === undefined) {
      this.unkeyedOptionRows++;
      this.looseIssues.push(cutShortIssue(row));
      return;
    }
    if (id === undefined && ref === undefined && sku === undefined) {
      this.unkeyedOptionRows++;
      this.looseIssues.push(
        this.issue(
          row,
          cols.ref ?? cols.sku ?? cols.id,
          'missing_product_key',
          'write the id, reference_id or sku of the product this option belongs to',
        ),
      );
      return;
    }
    const group = this.groupOf(row, id, ref, sku, cols, false);
    if (group === undefined && row.cutShort === true) {
      this.unkeyedOptionRows++;
      this.looseIssues.push(cutShortIssue(row));
      return;
    }
    if (group === undefined) {
      this.unkeyedOptionRows++;
      this.looseIssues.push(
        this.issue(
          row,
          cols.id ?? cols.ref ?? cols.sku,
          'option_product_not_found',
          `no row of the products sheet has ${id !== undefined ? `id ${id}` : ref !== undefined ? `reference_id ${ref}` : `sku ${sku ?? ''}`}; add the product to the products sheet or fix the key`,
        ),
      );
      return;
    }
    if (row.cutShort === true) {
      this.fail(group, cutShortIssue(row));
      return;
    }
    const option: DesiredOption = { row: { sheet: row.sheet, rowNumber: row.rowNumber } };
    const o = option as unknown as Record<string, unknown>;
    for (const col of this.optionCols) {
      const r = col.decode(row.cells[col.key] ?? null);
      if (r === undefined) continue;
      if (!r.ok) {
        this.fail(group, this.issue(row, col, r.code, `${col.column}: ${r.message}`));
        continue;
      }
      o[col.field] = r.value;
    }
    group.rows.push(option.row);
    if (option.id === undefined && option.text === undefined) {
      this.fail(
        group,
        this.issue(
          row,
          this.optionCols.find((c) => c.column === 'option_text'),
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
      this.fail(
        group,
        this.issue(
          row,
          this.optionCols.find((c) => c.column === (option.id !== undefined ? 'option_id' : 'option_text')),
          'duplicate_option',
          `this product already has option "${clash.text ?? clash.id ?? ''}" on row ${clash.row.rowNumber}; list each option once`,
        ),
      );
      return;
    }
    list.push(option);
  }

  /** Resolves the options sheet, runs the cross-product checks and returns the products. */
  finish(): ProductMapping {
    for (const row of this.pendingOptionRows) this.resolveOptionRow(row);
    this.pendingOptionRows.length = 0;

    // A variant sku may not be another product's sku.
    for (const [sku, v] of this.variantSkus) {
      const owner = this.bySku.get(sku);
      if (owner !== undefined && owner !== v.group) {
        const row = v.group.variants.find((x) => x.row.rowNumber === v.row)?.row;
        const issue: RowIssue = {
          severity: 'error',
          code: 'duplicate_variant_sku',
          message: `variant_sku "${sku}" is the sku of another product (row ${owner.rows[0]?.rowNumber ?? '?'}); skus must be unique across products and variants`,
          sheet: row?.sheet ?? this.options.sheetName ?? 'products',
          rowNumber: v.row,
          column: v.col.letter,
          header: v.col.header,
          value: sku,
        };
        this.fail(v.group, issue);
      }
    }

    const products: DesiredProduct[] = [];
    const issues: RowIssue[] = [...this.headerIssues, ...this.trimmed.warnings(), ...this.looseIssues];
    for (const g of this.groups) {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < this.productCols.length; i++) {
        const col = this.productCols[i] as BoundColumn;
        const v = g.values[i] ?? (this.clearMode ? col.spec.clear : undefined);
        if (v !== undefined) out[col.spec.field] = v;
      }
      const fields = out as DesiredProductFields;
      if (g.id !== undefined) fields.id = g.id;
      if (g.ref !== undefined) fields.reference_id = g.ref;
      if (g.sku !== undefined) fields.sku = g.sku;
      const key: ProductKey =
        g.id !== undefined
          ? { by: 'id', value: g.id }
          : g.ref !== undefined
            ? { by: 'reference_id', value: g.ref }
            : { by: 'sku', value: g.sku ?? '' };
      const product: DesiredProduct = {
        key,
        command: g.command ?? 'upsert',
        fields,
        variants: g.variants,
        rows: g.rows,
        invalid: g.invalid,
        issues: g.issues,
      };
      if (g.options !== undefined) product.options = g.options;
      products.push(product);
      for (const i of g.issues) issues.push(i);
    }
    return {
      products,
      issues,
      rowCount: this.rowCount,
      unkeyedRows: this.unkeyedRows,
      unkeyedOptionRows: this.unkeyedOptionRows,
      columns: this.presentColumns,
      columnRefs: this.columnRefs,
    };
  }
}

export interface SheetInput {
  columns: readonly SheetColumn[];
  rows: Iterable<SheetRow>;
  /** Sheet name for header issues (default: 'products' / 'options'). */
  sheet?: string;
}

/** One-shot form of ProductSheetMapper for rows already in memory. */
export function mapProductRows(
  products: SheetInput,
  options: ProductMappingOptions,
  optionSheet?: SheetInput,
): ProductMapping {
  const mapper = new ProductSheetMapper(
    products.columns,
    products.sheet === undefined ? options : { ...options, sheetName: products.sheet },
  );
  for (const row of products.rows) mapper.addRow(row);
  if (optionSheet !== undefined) {
    mapper.setOptionColumns(optionSheet.columns, optionSheet.sheet ?? 'options');
    for (const row of optionSheet.rows) mapper.addOptionRow(row);
  }
  return mapper.finish();
}

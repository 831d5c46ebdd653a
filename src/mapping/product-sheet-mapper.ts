import type { SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { cellIssue, type BoundColumn, type KeyColumns } from './bound-column.js';
import { PRODUCT_COLUMN_ALIASES, PRODUCT_SHEET_COLUMNS, resolveColumns } from './column-aliases.js';
import type { ProductSheetColumn } from './column-aliases.js';
import { columnHeaderIssues } from './column-header-issues.js';
import { nearestHeader } from './near-column.js';
import { cutShortIssue } from './cut-short-row.js';
import { MAX_IMAGES } from '../schema/product.js';
import { OptionsSheetColumns } from './options-sheet-columns.js';
import { CellFailure, buildProductColumnSpecs } from './product-cell-decoders.js';
import type { ColumnSpec } from './product-cell-decoders.js';
import type {
  ColumnRefs,
  DesiredProduct,
  DesiredVariantFields,
  ProductCommand,
  ProductMapping,
  ProductMappingOptions,
  SourceRow,
} from './product-desired.js';
import { GroupParking } from './parked-group.js';
import { packedProduct, productUnpacker } from './packed-product.js';
import { groupProduct, productFields, type FieldColumn } from './product-fields.js';
import { PackedTexts } from './packed-texts.js';
import { failGroup, type ProductGroup } from './product-group.js';
import { ProductKeyIndex } from './product-key-index.js';
import type { RowIssue } from './row-issue.js';
import { TrimmedCells } from './trimmed-cells.js';

/** Every header the products sheet knows: canonical names, then aliases (for near matches). */
const KNOWN_PRODUCT_HEADERS: readonly string[] = [
  ...PRODUCT_SHEET_COLUMNS,
  ...Object.keys(PRODUCT_COLUMN_ALIASES),
];

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  return false;
}

/** How many products stay unparked while a sheet is read with `pack` (see GroupParking). */
const OPEN_PRODUCTS = 256;

function show(value: unknown): string {
  return Array.isArray(value) ? value.join('|') : String(value);
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
  private readonly keyCols: KeyColumns = {};
  private commandCol: BoundColumn | undefined;
  private readonly productCols: BoundColumn[] = [];
  private readonly variantCols: BoundColumn[] = [];
  private variantIdCol: BoundColumn | undefined;
  private variantSkuCol: BoundColumn | undefined;
  private unkeyedRows = 0;
  private unkeyedOptionRows = 0;
  private readonly clearMode: boolean;
  private readonly keys: ProductKeyIndex;
  private readonly parking: GroupParking | undefined;
  private readonly texts = new PackedTexts();
  private readonly variantIds = new Map<string, number>();
  private readonly variantSkus = new Map<string, { group: ProductGroup; row: number; col: BoundColumn }>();
  /** Variants whose SKU an earlier variant already has, in sheet order. */
  private readonly repeatedSkus: { group: ProductGroup; row: number; sku: string; first: number }[] = [];
  private readonly looseIssues: RowIssue[] = [];
  /** id / reference_id / sku / variant_sku cells read trimmed: one warning per column, never silent. */
  private readonly trimmed = new TrimmedCells();
  private readonly headerIssues: RowIssue[] = [];
  private readonly pendingOptionRows: SheetRow[] = [];
  private optionSheet: OptionsSheetColumns | undefined;
  private readonly presentColumns: string[] = [];
  private readonly columnRefs: ColumnRefs = {};
  private rowCount = 0;
  /** Key cells of the current row that cannot be a key (reused: most rows have none). */
  private readonly keyFailures: RowIssue[] = [];

  constructor(columns: readonly SheetColumn[], options: ProductMappingOptions) {
    this.options = options;
    this.clearMode = options.blank === 'clear';
    const specs = buildProductColumnSpecs(options);
    const sheet = options.sheetName ?? 'products';
    const resolved = resolveColumns<ProductSheetColumn>(
      columns,
      PRODUCT_SHEET_COLUMNS,
      PRODUCT_COLUMN_ALIASES,
      options.columnFields,
    );
    const suggest = (header: string): ProductSheetColumn | undefined => {
      const near = nearestHeader(header, KNOWN_PRODUCT_HEADERS);
      return near === undefined ? undefined : (PRODUCT_COLUMN_ALIASES[near] ?? (near as ProductSheetColumn));
    };
    this.headerIssues.push(
      ...columnHeaderIssues(
        sheet,
        options.headerRowNumber ?? 1,
        resolved.unknown,
        resolved.duplicates,
        suggest,
      ),
    );
    // A field the sheet lacks but an unknown column nearly names: issues about it say which column.
    const nearKey: string[] = [];
    for (const col of resolved.unknown) {
      const field = suggest(col.header);
      if (field === undefined || resolved.byField.has(field)) continue;
      const hint = `did you mean column ${col.letter}, "${col.header}"?`;
      this.columnRefs[field] ??= { letter: '', header: field, hint: `no ${field} column: ${hint}` };
      if (field === 'id' || field === 'reference_id' || field === 'sku') nearKey.push(`${field} (${hint})`);
    }
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
        message: `the sheet needs an id, reference_id or sku column so each row can be matched to a product${nearKey.length > 0 ? `; ${nearKey.join('; ')}` : ''}`,
        sheet,
        rowNumber: options.headerRowNumber ?? 1,
      });
    }
    const imagesSlot = this.productCols.findIndex((c) => c.spec.column === 'images');
    // A product with more images than the API takes is left unparked: finish() settles it.
    this.parking =
      options.pack === true
        ? new GroupParking(this.texts, sheet, OPEN_PRODUCTS, (g) => {
            const images = g.values[imagesSlot];
            return Array.isArray(images) && images.length > MAX_IMAGES;
          })
        : undefined;
    this.keys = new ProductKeyIndex(this.productCols.length, this.parking);
  }

  /** The group, unparked (a no-op without `pack`). */
  private touch(g: ProductGroup): ProductGroup {
    return this.parking === undefined ? g : this.parking.touch(g);
  }

  /** Adds a products-sheet row to its product's rows (and the product's source categories). */
  private addSourceRow(group: ProductGroup, source: SourceRow): void {
    group.rows.push(source);
    const categories = this.options.sourceCategories;
    if (
      categories !== undefined &&
      group.sourceCategories === undefined &&
      source.sheet === (this.options.sheetName ?? 'products')
    )
      group.sourceCategories = categories.get(source.rowNumber);
  }

  /** A key cell's value; a cell that cannot be a key (`3.65275E+11`) adds its issue to `failures`. */
  private decodeKey(row: SheetRow, col: BoundColumn | undefined, failures?: RowIssue[]): string | undefined {
    if (col === undefined) return undefined;
    const raw = row.cells[col.key];
    if (raw === '' || raw === null || raw === undefined) return undefined;
    const r = col.spec.decode(raw);
    if (r instanceof CellFailure)
      failures?.push(cellIssue(row, col, r.code, `${col.spec.column}: ${r.message}`));
    if (typeof r !== 'string') return undefined;
    if (typeof raw === 'string' && r.length !== raw.length) this.trimmed.note(col, row.sheet, row.rowNumber);
    return r;
  }

  /** Feeds one data row of the products sheet. */
  addRow(row: SheetRow): void {
    this.rowCount++;
    const keyFailures = this.keyFailures;
    keyFailures.length = 0;
    const id = this.decodeKey(row, this.keyCols.id, keyFailures);
    const ref = this.decodeKey(row, this.keyCols.ref, keyFailures);
    const sku = this.decodeKey(row, this.keyCols.sku, keyFailures);
    if (row.cutShort === true) {
      // A cut row never contributes values (a cut price is a wrong price); its product, if the key
      // survived, is invalid as a whole.
      const issue = cutShortIssue(row);
      const group =
        id === undefined && ref === undefined && sku === undefined
          ? undefined
          : this.keys.groupOf(row, id, ref, sku, this.keyCols, true);
      if (group === undefined) {
        this.unkeyedRows++;
        this.looseIssues.push(issue);
      } else {
        failGroup(group, issue);
        this.addSourceRow(group, { sheet: row.sheet, rowNumber: row.rowNumber });
      }
      return;
    }
    if (id === undefined && ref === undefined && sku === undefined) {
      this.unkeyedRows++;
      if (keyFailures.length > 0) {
        for (const issue of keyFailures) this.looseIssues.push(issue);
        return;
      }
      this.looseIssues.push(
        cellIssue(
          row,
          this.keyCols.ref ?? this.keyCols.sku ?? this.keyCols.id,
          'missing_product_key',
          'write the product id, reference_id or sku on this row (repeat it on every variant row of the product)',
        ),
      );
      return;
    }
    const group = this.keys.groupOf(row, id, ref, sku, this.keyCols, true) as ProductGroup;
    for (const issue of keyFailures) failGroup(group, issue);
    const cells = row.cells;

    const cmdCol = this.commandCol;
    if (cmdCol !== undefined) {
      const r = cmdCol.spec.decode(cells[cmdCol.key] ?? null);
      if (r !== undefined) {
        if (r instanceof CellFailure)
          failGroup(group, cellIssue(row, cmdCol, r.code, `command: ${r.message}`));
        else if (group.command === undefined) {
          group.command = r as ProductCommand;
          group.commandRow = row.rowNumber;
        } else if (group.command !== r) {
          failGroup(
            group,
            cellIssue(
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
        failGroup(group, cellIssue(row, col, r.code, `${col.spec.column}: ${r.message}`));
        continue;
      }
      const prev = values[i];
      if (prev === undefined) {
        values[i] = r;
        group.valueRows[i] = row.rowNumber;
      } else if (!sameValue(prev, r)) {
        failGroup(
          group,
          cellIssue(
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
    this.addSourceRow(group, source);
  }

  private addVariant(row: SheetRow, group: ProductGroup, source: SourceRow): void {
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
        failGroup(group, cellIssue(row, col, r.code, `${col.spec.column}: ${r.message}`));
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
        failGroup(
          group,
          cellIssue(
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
      if (seen !== undefined)
        this.repeatedSkus.push({ group, row: row.rowNumber, sku: fields.sku, first: seen.row });
      else this.variantSkus.set(fields.sku, { group, row: row.rowNumber, col });
    }
    group.variants.push({ fields, row: source });
  }

  /** Declares the options sheet's header (call before addOptionRow). */
  setOptionColumns(columns: readonly SheetColumn[], sheet = 'options'): void {
    this.optionSheet = new OptionsSheetColumns(
      columns,
      sheet,
      this.options,
      this.headerIssues,
      this.columnRefs,
    );
  }

  /** Feeds one data row of the options sheet (resolved against the products in finish()). */
  addOptionRow(row: SheetRow): void {
    this.rowCount++;
    this.pendingOptionRows.push(row);
  }

  private resolveOptionRow(row: SheetRow): void {
    const cols = this.optionSheet?.keyCols ?? {};
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
        cellIssue(
          row,
          cols.ref ?? cols.sku ?? cols.id,
          'missing_product_key',
          'write the id, reference_id or sku of the product this option belongs to',
        ),
      );
      return;
    }
    const group = this.keys.groupOf(row, id, ref, sku, cols, false);
    if (group === undefined && row.cutShort === true) {
      this.unkeyedOptionRows++;
      this.looseIssues.push(cutShortIssue(row));
      return;
    }
    if (group === undefined) {
      this.unkeyedOptionRows++;
      this.looseIssues.push(
        cellIssue(
          row,
          cols.id ?? cols.ref ?? cols.sku,
          'option_product_not_found',
          `no row of the products sheet has ${id !== undefined ? `id ${id}` : ref !== undefined ? `reference_id ${ref}` : `sku ${sku ?? ''}`}; add the product to the products sheet or fix the key`,
        ),
      );
      return;
    }
    if (row.cutShort === true) {
      failGroup(group, cutShortIssue(row));
      return;
    }
    this.optionSheet?.addTo(group, row);
  }

  /**
   * A product lists more images than the API takes: invalid, naming the product and
   * `--images first-10`; with that option the first ten are kept and the others listed in a
   * warning on the row that holds the list (results.csv and the plan show it).
   */
  private limitImages(g: ProductGroup): void {
    const slot = this.productCols.findIndex((c) => c.spec.column === 'images');
    const images = g.values[slot];
    if (slot < 0 || !Array.isArray(images) || images.length <= MAX_IMAGES) return;
    const col = this.productCols[slot] as BoundColumn;
    const nameSlot = this.productCols.findIndex((c) => c.spec.column === 'name');
    const name = nameSlot < 0 ? undefined : g.values[nameSlot];
    const key = g.ref ?? g.sku ?? g.id ?? '';
    const product = `"${key}"${typeof name === 'string' && name !== key ? ` (${name})` : ''}`;
    const row = {
      sheet: g.rows[0]?.sheet ?? this.options.sheetName ?? 'products',
      rowNumber: g.valueRows[slot] ?? 0,
    };
    const issue = (severity: 'error' | 'warning', code: string, message: string): RowIssue => ({
      severity,
      code,
      message,
      ...row,
      column: col.letter,
      header: col.header,
    });
    const extra = images.length - MAX_IMAGES;
    if (this.options.images !== 'first-10') {
      failGroup(
        g,
        issue(
          'error',
          'too_many_images',
          `${product} has ${images.length} images; a product has at most ${MAX_IMAGES}: import with --images first-10 to keep the first ${MAX_IMAGES} (in position order), or remove ${extra}`,
        ),
      );
      return;
    }
    const dropped = images.slice(MAX_IMAGES) as string[];
    g.values[slot] = images.slice(0, MAX_IMAGES);
    failGroup(
      g,
      issue(
        'warning',
        'images_dropped',
        `${product} has ${images.length} images; the first ${MAX_IMAGES} are kept (--images first-10), ${extra} not imported: ${dropped.join(' ')}`,
      ),
    );
  }

  /** A product as messages name it: `"handle" (Title)`. */
  private productLabel(g: ProductGroup): string {
    const nameSlot = this.productCols.findIndex((c) => c.spec.column === 'name');
    const name = nameSlot < 0 ? undefined : g.values[nameSlot];
    const key = g.ref ?? g.sku ?? g.id ?? '';
    return `"${key}"${typeof name === 'string' && name !== key ? ` (${name})` : ''}`;
  }

  /**
   * Variant SKUs held twice: by an earlier variant (of this product or another), or by another
   * product as its own SKU. One issue per product, naming it and every row: an error (the product
   * is invalid), or with `duplicateSku: 'first'` a warning, the later variants given no SKU.
   */
  private settleRepeatedSkus(): void {
    const col = this.variantSkuCol;
    if (col === undefined) return;
    interface Clash {
      row: number;
      sku: string;
      where: string;
    }
    const clashes = new Map<ProductGroup, Clash[]>();
    const add = (g: ProductGroup, c: Clash) => {
      const list = clashes.get(g);
      if (list === undefined) clashes.set(g, [c]);
      else list.push(c);
    };
    // Another product's own sku takes precedence over a variant's.
    for (const [sku, v] of this.variantSkus) {
      const owner = this.keys.ownerOfSku(sku);
      if (owner !== undefined && owner !== v.group)
        add(v.group, {
          row: v.row,
          sku,
          where: `the SKU of product ${this.productLabel(this.touch(owner))} (row ${owner.rows[0]?.rowNumber ?? '?'})`,
        });
    }
    for (const r of this.repeatedSkus) {
      const owner = this.keys.ownerOfSku(r.sku);
      const where =
        owner !== undefined && owner !== r.group
          ? `the SKU of product ${this.productLabel(this.touch(owner))} (row ${owner.rows[0]?.rowNumber ?? '?'})`
          : `already on row ${r.first}`;
      add(r.group, { row: r.row, sku: r.sku, where });
    }
    const first = this.options.duplicateSku === 'first';
    for (const [g, list] of clashes) {
      this.touch(g);
      list.sort((a, b) => a.row - b.row);
      const shown = list
        .slice(0, 10)
        .map((c) => `row ${c.row}: "${c.sku}" is ${c.where}`)
        .join('; ');
      const more = list.length > 10 ? `; and ${list.length - 10} more` : '';
      const head = list[0] as Clash;
      const sheet = g.rows[0]?.sheet ?? this.options.sheetName ?? 'products';
      const at = { sheet, rowNumber: head.row, column: col.letter, header: col.header };
      if (first) {
        for (const c of list) {
          const v = g.variants.find((x) => x.row.rowNumber === c.row);
          if (v !== undefined) delete v.fields.sku;
        }
        failGroup(g, {
          severity: 'warning',
          code: 'duplicate_variant_sku',
          message: `product ${this.productLabel(g)}: ${list.length} variant${list.length === 1 ? '' : 's'} given no SKU (--duplicate-sku first), the SKU staying where it is first: ${shown}${more}`,
          ...at,
        });
      } else {
        failGroup(g, {
          severity: 'error',
          code: 'duplicate_variant_sku',
          message: `product ${this.productLabel(g)}: ${list.length === 1 ? 'a variant SKU is' : `${list.length} variant SKUs are`} held twice (${shown}${more}); each variant needs its own SKU: make them unique, or import with --duplicate-sku first (the first keeps it, the others are created without a SKU)`,
          ...at,
          value: head.sku,
        });
      }
    }
  }

  /** Resolves the options sheet, runs the cross-product checks and returns the products. */
  finish(): ProductMapping {
    for (const row of this.pendingOptionRows) this.resolveOptionRow(row);
    this.pendingOptionRows.length = 0;

    this.settleRepeatedSkus();

    const products: DesiredProduct[] = [];
    const issues: RowIssue[] = [...this.headerIssues, ...this.trimmed.warnings(), ...this.looseIssues];
    const fieldCols: FieldColumn[] = this.productCols.map((c) => ({
      field: c.spec.field,
      clear: this.clearMode ? c.spec.clear : undefined,
    }));
    const unpacker =
      this.parking === undefined
        ? undefined
        : productUnpacker(fieldCols, this.options.sheetName ?? 'products', this.texts);
    for (const g of this.keys.groups) {
      if (g.packed !== undefined && unpacker !== undefined) {
        // Parked (so with no more images than the API takes): kept packed until it is planned.
        products.push(packedProduct(g, unpacker));
        for (const i of g.issues) issues.push(i);
        continue;
      }
      this.limitImages(g);
      const product = groupProduct(g, productFields(fieldCols, g.values, g), g.variants, g.rows);
      if (g.options !== undefined) product.options = g.options;
      if (g.sourceCategories !== undefined) product.sourceCategories = g.sourceCategories;
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

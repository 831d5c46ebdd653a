import { basename } from 'node:path';
import { EXPORTED_AT_COLUMN, exportedAtMs } from '../../mapping/exported-at.js';
import { ProductSheetMapper } from '../../mapping/product-sheet-mapper.js';
import type { ProductMapping, ProductMappingOptions } from '../../mapping/product-desired.js';
import type { RowIssue } from '../../mapping/row-issue.js';
import { RESERVED_COLUMN_PREFIX } from '../../results/row-result.js';
import { restoreFormulaText } from '../../sheets/neutralize-formula.js';
import { readSheet, type ReadSheetOptions, type SheetInfo } from '../../sheets/read-sheet.js';
import type { SheetColumn, SheetRow } from '../../sheets/sheet-row.js';
import { applyColumnMap, type ColumnMap, type MappedColumns } from '../../formats/column-map.js';
import { detectProductFormat, isWooHeader, type DetectedFormat } from '../../formats/detect-format.js';
import { readWooHeader, type WooHeaderReading } from '../../formats/woocommerce/woo-header-reading.js';
import { EtsyProductConverter } from '../../formats/etsy/etsy-product-converter.js';
import { WixProductConverter } from '../../formats/wix/wix-product-converter.js';
import { SquareProductConverter } from '../../formats/square/square-product-converter.js';
import { BigCommerceProductConverter } from '../../formats/bigcommerce/bigcommerce-product-converter.js';
import { ShopifyProductConverter } from '../../formats/shopify/shopify-product-converter.js';
import {
  FORMAT_LABELS,
  type NearColumn,
  type ProductConverter,
  type ProductSourceFormat,
  type SkippedRow,
} from '../../formats/source-format.js';
import { describeSheetColumns, type SourceDescription } from '../../formats/source-description.js';
import { WooProductConverter } from '../../formats/woocommerce/woo-product-converter.js';
import { fileWarning, type JobCallbacks } from '../job-events.js';
import { SheetHeaderError } from '../sheet-header-error.js';
import { UsageError } from '../../errors/usage-error.js';
import { appendAll } from '../../plan/append-all.js';

/** Where the options of a product import come from. */
export type OptionsSource =
  | { kind: 'none' }
  /** The `options` sheet of the products workbook. */
  | { kind: 'workbook'; sheet: string }
  /** A separate file (`--options FILE`). */
  | { kind: 'file'; file: string; sheet?: string | undefined };

export interface ReadProductSheetsOptions extends JobCallbacks {
  file: string;
  read?: ReadSheetOptions | undefined;
  /** `--options FILE`; default: the workbook's `options` sheet, if any. */
  optionsFile?: string | undefined;
  mapping: ProductMappingOptions;
  /** The format of the products sheet (`--from`); default: detected from its header. */
  from?: ProductSourceFormat | undefined;
  /** `--map` / `--map-file`: source headers renamed to canonical fields (merchant-bulk format only). */
  columnMap?: ColumnMap | undefined;
  /** `--location NAME`: a Square export's stock from that location alone (default: summed). */
  location?: string | undefined;
  /**
   * Called once the products sheet's header is read and its format known, before its rows are
   * mapped (the import starts reading the live catalog then, while the rows are read).
   */
  onHeader?: (() => void) | undefined;
  /**
   * Awaited every ROWS_BETWEEN_TURNS rows mapped: the import lets the live catalog's pages be
   * answered while the rows are read (a batch of ~3,000 rows held the thread for tens of ms).
   */
  letReadGo?: (() => Promise<void> | undefined) | undefined;
}

/** Rows mapped between two turns of `letReadGo`. */
const ROWS_BETWEEN_TURNS = 256;

export interface ProductSheets {
  mapping: ProductMapping;
  products: SheetInfo;
  /** The sheet label rows of the products sheet carry (issues, plan rows). */
  productsLabel: string;
  options: OptionsSource;
  optionsInfo?: SheetInfo;
  optionsLabel?: string;
  /** What the products sheet was read as: format, header row, what each source column became. */
  source: SourceDescription;
  /** Rows the format conversion left out on purpose (results.csv: left_out). */
  skipped: SkippedRow[];
  /** Data rows read (both sheets). */
  rows: number;
  /** Data rows of the products sheet alone. */
  productRows: number;
  /**
   * The earliest `mbulk_exported_at` of the products sheet (ISO 8601): the sheet is an export taken
   * then. Absent when the sheet has no such column or no readable value in it.
   */
  exportedAt?: string;
  /** Seconds spent reading and mapping. */
  seconds: number;
}

/** Header problems that make a sheet unusable (exit 2, nothing planned). */
const HEADER_ERRORS = new Set(['missing_key_column', 'duplicate_column', 'missing_option_column']);

/** Columns the importer reads: those starting with `mbulk_` (failed.csv's error column) are ignored. */
export function importableColumns(columns: readonly SheetColumn[]): SheetColumn[] {
  return columns.filter((c) => !c.key.startsWith(RESERVED_COLUMN_PREFIX));
}

/**
 * A row as the mapping sees it: text an export neutralised (`'=x`, `'-5 off`) is restored, and the
 * sheet label is the given one. The row object is reused when nothing changes.
 */
function cleanRow(row: SheetRow, label: string): SheetRow {
  let cells = row.cells;
  for (const key in cells) {
    const v = cells[key];
    if (typeof v === 'string' && v.charCodeAt(0) === 39 /* ' */) {
      const restored = restoreFormulaText(v);
      if (restored !== v) {
        if (cells === row.cells) cells = { ...cells };
        cells[key] = restored;
      }
    }
  }
  if (cells === row.cells && row.sheet === label) return row;
  return { sheet: label, rowNumber: row.rowNumber, cells };
}

/**
 * Reads the products sheet (and the options sheet or file) through ProductSheetMapper, streaming:
 * only the mapped products are kept. Throws SheetHeaderError when a header makes the sheet unusable.
 */
export async function readProductSheets(options: ReadProductSheetsOptions): Promise<ProductSheets> {
  const started = performance.now();
  // A products sheet's header may sit below a title row or merged headings: found unless given.
  const read: ReadSheetOptions = { headerRow: 'auto', ...options.read };
  let reader = readSheet(options.file, read);
  let info = await reader.open();
  // A workbook without --sheet: its `products` sheet when it has one, else the first.
  if (info.format === 'xlsx' && options.read?.sheet === undefined) {
    const named = info.sheetNames.find((n) => n.toLowerCase() === 'products');
    if (named !== undefined && named !== info.sheet) {
      await reader.close();
      reader = readSheet(options.file, { ...read, sheet: named });
      info = await reader.open();
    }
  }
  const productsLabel = info.sheet;
  const sourceColumns = importableColumns(info.columns);
  // The first rows help recognise a WooCommerce export whose headers are in a language not known.
  const batches = reader.batches()[Symbol.asyncIterator]();
  const firstBatch = await batches.next();
  const sample = firstBatch.done === true ? [] : firstBatch.value.slice(0, FORMAT_SAMPLE_ROWS);
  const detected: DetectedFormat = options.from
    ? { format: options.from }
    : detectProductFormat(sourceColumns, sample);
  const format = detected.format;
  if (format === 'woocommerce') {
    detected.woo ??= readWooHeader(sourceColumns, sample);
    if (!isWooHeader(detected.woo)) {
      await reader.close();
      throw notWooHeader(options.file, sourceColumns);
    }
  }
  if (options.columnMap !== undefined && format !== 'mbulk') {
    await reader.close();
    throw new UsageError(
      `${options.file}: this is a ${FORMAT_LABELS[format]}, read by its own rules; --map and --map-file apply to other sheets (or pass --from mbulk)`,
      'map',
    );
  }
  if (options.location !== undefined && format !== 'square') {
    await reader.close();
    throw new UsageError(
      `${options.file}: this is a ${FORMAT_LABELS[format]}; --location takes one location's stock of a Square item library export (its Current Quantity columns) and applies to no other sheet`,
      'location',
    );
  }
  let converter: ProductConverter | undefined;
  let mapped: MappedColumns | undefined;
  try {
    if (format === 'shopify') converter = new ShopifyProductConverter(sourceColumns, productsLabel);
    else if (format === 'etsy') converter = new EtsyProductConverter(sourceColumns, productsLabel);
    else if (format === 'wix') converter = new WixProductConverter(sourceColumns, productsLabel);
    else if (format === 'bigcommerce')
      converter = new BigCommerceProductConverter(sourceColumns, productsLabel);
    else if (format === 'square')
      converter = new SquareProductConverter(sourceColumns, productsLabel, { location: options.location });
    else if (detected.woo !== undefined)
      converter = new WooProductConverter(detected.woo.columns, productsLabel, detected.woo.rename);
    if (options.columnMap !== undefined)
      mapped = applyColumnMap(sourceColumns, options.columnMap, options.file);
  } catch (error) {
    // A --location this export has not, a --map naming headers it has not: read no further.
    await reader.close();
    throw error;
  }
  const mappingOptions = {
    ...options.mapping,
    sheetName: productsLabel,
    headerRowNumber: info.headerRow || 1,
  };
  let mapper =
    converter === undefined
      ? new ProductSheetMapper(
          mapped?.columns ?? sourceColumns,
          mapped === undefined ? mappingOptions : { ...mappingOptions, columnFields: mapped.fields },
        )
      : undefined;
  options.onHeader?.();
  let rows = 0;
  const stamped = info.columns.some((c) => c.key === EXPORTED_AT_COLUMN);
  let exportedAt = Number.POSITIVE_INFINITY;
  let unreadableAt: number | undefined;
  const rest: AsyncIterable<SheetRow[]> = { [Symbol.asyncIterator]: () => batches };
  let sinceTurn = 0;
  for await (const batch of chainFirst(firstBatch, rest)) {
    for (const row of batch) {
      if (++sinceTurn === ROWS_BETWEEN_TURNS) {
        sinceTurn = 0;
        const turn = options.letReadGo?.();
        if (turn !== undefined) await turn;
      }
      if (converter !== undefined) converter.addRow(cleanRow(row, productsLabel));
      else if (mapped !== undefined)
        (mapper as ProductSheetMapper).addRow(mapped.row(cleanRow(row, productsLabel)));
      else (mapper as ProductSheetMapper).addRow(cleanRow(row, productsLabel));
      if (stamped) {
        // Rows added to an export leave it blank: only a filled, unreadable cell is worth a warning.
        const cell = row.cells[EXPORTED_AT_COLUMN];
        const at = exportedAtMs(cell);
        if (at !== undefined) exportedAt = Math.min(exportedAt, at);
        else if (cell !== null && cell !== undefined && String(cell).trim() !== '')
          unreadableAt ??= row.rowNumber;
      }
    }
    rows += batch.length;
    options.onProgress?.({ phase: 'read', done: rows });
  }
  // A converter that can gives its rows one product at a time (a million-row export is never
  // converted whole): the mapper packs each product as it goes.
  const converted = converter === undefined ? undefined : (converter.stream?.() ?? converter.finish());
  if (converted !== undefined) {
    // The platform's categories of each product (its first row that has any), for --category-map.
    mapper = new ProductSheetMapper(
      converted.columns,
      converted.categories === undefined
        ? mappingOptions
        : { ...mappingOptions, sourceCategories: converted.categories },
    );
    for (const row of converted.rows) mapper.addRow(row);
  }
  const source: SourceDescription = {
    format: converted === undefined && options.columnMap !== undefined ? 'map' : format,
    label: formatLabel(
      converted === undefined && options.columnMap !== undefined ? 'map' : format,
      detected.woo,
    ),
    detected: options.from === undefined,
    headerRow: info.headerRow || 1,
    columns: converted?.columnUses ?? describeSheetColumns(mapped?.columns ?? sourceColumns, mapped),
  };
  if ('hint' in detected && detected.hint !== undefined) source.hint = detected.hint;
  const productMapper = mapper as ProductSheetMapper;
  for (const w of reader.warnings) options.onWarning?.(fileWarning(options.file, w.message));
  if (unreadableAt !== undefined) {
    options.onWarning?.(
      fileWarning(
        options.file,
        `${EXPORTED_AT_COLUMN} on row ${unreadableAt} is not a date-time; the stock of items that changed since the export is only protected by the readable ones`,
      ),
    );
  }
  const productRows = rows;

  let optionsSource: OptionsSource = { kind: 'none' };
  let optionsInfo: SheetInfo | undefined;
  let optionsLabel: string | undefined;
  let optionsReader;
  if (options.optionsFile !== undefined) {
    optionsReader = readSheet(options.optionsFile, {});
    optionsInfo = await optionsReader.open();
    optionsSource = {
      kind: 'file',
      file: options.optionsFile,
      sheet: optionsInfo.format === 'xlsx' ? optionsInfo.sheet : undefined,
    };
  } else if (info.format === 'xlsx') {
    const candidate = readSheet(options.file, { ...options.read, sheet: 'options', optionalSheet: true });
    const ci = await candidate.open();
    if (!ci.missing && ci.sheet.toLowerCase() !== info.sheet.toLowerCase()) {
      optionsReader = candidate;
      optionsInfo = ci;
      optionsSource = { kind: 'workbook', sheet: ci.sheet };
    } else await candidate.close();
  }
  if (optionsReader !== undefined && optionsInfo !== undefined) {
    optionsLabel = optionsInfo.sheet === productsLabel ? `options:${optionsInfo.sheet}` : optionsInfo.sheet;
    if (optionsSource.kind === 'file' && optionsInfo.format === 'csv' && optionsLabel === productsLabel) {
      optionsLabel = basename(options.optionsFile ?? 'options');
    }
    productMapper.setOptionColumns(importableColumns(optionsInfo.columns), optionsLabel);
    for await (const batch of optionsReader.batches()) {
      for (const row of batch) productMapper.addOptionRow(cleanRow(row, optionsLabel));
      rows += batch.length;
      options.onProgress?.({ phase: 'read', done: rows });
    }
    for (const w of optionsReader.warnings) options.onWarning?.(fileWarning(optionsInfo.file, w.message));
  }
  const mapping = productMapper.finish();
  const split = mapped?.commaSplit;
  if (split?.first !== undefined) {
    // Said once: a list cell of a mapped sheet with commas and no `|` was read as comma-separated.
    const { rowNumber, header, letter, field } = split.first;
    mapping.issues.push({
      severity: 'warning',
      code: 'list_split_on_commas',
      message: `${split.cells} list cell${split.cells === 1 ? '' : 's'} with commas and no | read as comma-separated (the first: "${header}" → ${field}, here); separate entries with | to keep a comma inside one`,
      sheet: productsLabel,
      rowNumber,
      ...(letter !== '' ? { column: letter, header } : {}),
    });
  }
  if (converted !== undefined) {
    appendAll(mapping.issues, converted.issues); // one per source row at most
    reportNearColumns(mapping, converted.nearColumns, productsLabel, info.headerRow || 1, source.label);
    // A converted sheet's columns are canonical fields: issues get the source's headers back. (A
    // column map keeps the user's headers on its columns.)
    pointAtSourceHeaders(mapping, productsLabel, sourceColumns);
  }
  const fatal = mapping.issues.filter((i) => i.severity === 'error' && HEADER_ERRORS.has(i.code));
  if (fatal.length > 0) {
    // The file is named once: a CSV's sheet label is its own name.
    const where = (i: RowIssue) => (i.sheet === basename(options.file) ? '' : `${i.sheet}: `);
    throw new SheetHeaderError(
      `${options.file}: ${fatal.map((i) => `${where(i)}${i.message}`).join('; ')}`,
      fatal,
    );
  }
  const result: ProductSheets = {
    mapping,
    products: info,
    productsLabel,
    options: optionsSource,
    source,
    skipped: converted?.skipped ?? [],
    rows,
    productRows,
    seconds: (performance.now() - started) / 1000,
  };
  if (Number.isFinite(exportedAt)) result.exportedAt = new Date(exportedAt).toISOString();
  if (optionsInfo !== undefined) result.optionsInfo = optionsInfo;
  if (optionsLabel !== undefined) result.optionsLabel = optionsLabel;
  return result;
}

/**
 * Columns of a platform export that nearly name a column it lacks (`Variant Prce`): a warning on
 * the header row saying which, and a hint that every issue about the missing field repeats.
 */
function reportNearColumns(
  mapping: ProductMapping,
  near: readonly NearColumn[],
  sheet: string,
  headerRow: number,
  format: string,
): void {
  for (const n of near) {
    const { column, suggestion } = n;
    mapping.issues.push({
      severity: 'warning',
      code: 'near_column',
      message: `column "${column.header}" is not a column of a ${format} and is not imported; did you mean ${suggestion}?`,
      sheet,
      rowNumber: headerRow,
      column: column.letter,
      header: column.header,
    });
    for (const field of n.fields) {
      const ref = mapping.columnRefs[field];
      if (ref !== undefined && ref.letter !== '') continue;
      mapping.columnRefs[field] = {
        letter: '',
        header: suggestion,
        hint: `no ${suggestion} column: did you mean column ${column.letter}, "${column.header}"?`,
      };
    }
  }
}

/** How many first rows the format detection looks at. */
const FORMAT_SAMPLE_ROWS = 100;

/** The first batch (already read), then the rest. */
async function* chainFirst(
  first: IteratorResult<SheetRow[], unknown>,
  rest: AsyncIterable<SheetRow[]>,
): AsyncIterable<SheetRow[]> {
  if (first.done === true) return;
  yield first.value;
  yield* rest;
}

/** `WooCommerce product export (Russian headers)`: the plan's first line. */
function formatLabel(format: ProductSourceFormat | 'map', woo: WooHeaderReading | undefined): string {
  const label = FORMAT_LABELS[format];
  if (woo === undefined) return label;
  const how = [
    ...(woo.language !== undefined ? [`${woo.language} headers`] : []),
    ...(woo.byOrder.length > 0
      ? [
          `${woo.byOrder.length} column${woo.byOrder.length === 1 ? '' : 's'} read by the exporter's column order: ${woo.byOrder.join(', ')}`,
        ]
      : []),
  ];
  return how.length === 0 ? label : `${label} (${how.join('; ')})`;
}

/** `--from woocommerce` on a sheet whose header is not the exporter's in any known language. */
function notWooHeader(file: string, columns: readonly SheetColumn[]): SheetHeaderError {
  const shown = columns
    .slice(0, 6)
    .map((c) => c.header)
    .join(', ');
  return new SheetHeaderError(
    `${file}: --from woocommerce, but its header (${shown}${columns.length > 6 ? ', …' : ''}) is not WooCommerce's product export in any language merchant-bulk knows: no Type and Name columns were found by name, by the exporter's column order or by their values (simple, variable, variation). Import it with --map "Header=field,…" instead`,
    [],
  );
}

/**
 * Issues of a converted sheet name the canonical field (`variant_price`); the user reads
 * the source sheet, so each issue with a column letter gets that column's own header back.
 */
function pointAtSourceHeaders(mapping: ProductMapping, sheet: string, columns: readonly SheetColumn[]): void {
  const byLetter = new Map(columns.map((c) => [c.letter, c.header]));
  const fix = (i: RowIssue) => {
    if (i.sheet !== sheet || i.column === undefined) return;
    const header = byLetter.get(i.column);
    if (header !== undefined) i.header = header;
  };
  for (const i of mapping.issues) fix(i);
  for (const p of mapping.products) for (const i of p.issues) fix(i);
  // And the plan's issues, which find a field's cell through columnRefs.
  for (const ref of Object.values(mapping.columnRefs)) {
    const header = ref.letter === '' ? undefined : byLetter.get(ref.letter);
    if (header !== undefined) ref.header = header;
  }
}

/** Issues of a mapping that belong to no product (header warnings, rows without a key…). */
export function looseIssues(mapping: ProductMapping): RowIssue[] {
  const owned = new Set<RowIssue>();
  for (const p of mapping.products) for (const i of p.issues) owned.add(i);
  return mapping.issues.filter((i) => !owned.has(i));
}

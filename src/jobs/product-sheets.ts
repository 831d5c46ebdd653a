import { basename } from 'node:path';
import { EXPORTED_AT_COLUMN, exportedAtMs } from '../mapping/exported-at.js';
import { ProductSheetMapper } from '../mapping/product-sheet-mapper.js';
import type { ProductMapping, ProductMappingOptions } from '../mapping/product-desired.js';
import type { RowIssue } from '../mapping/row-issue.js';
import { RESERVED_COLUMN_PREFIX } from '../apply/results-file.js';
import { restoreFormulaText } from '../sheets/neutralize-formula.js';
import { readSheet, type ReadSheetOptions, type SheetInfo } from '../sheets/read-sheet.js';
import type { SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { fileWarning, type JobCallbacks } from './job-events.js';
import { SheetHeaderError } from './sheet-header-error.js';

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
}

export interface ProductSheets {
  mapping: ProductMapping;
  products: SheetInfo;
  /** The sheet label rows of the products sheet carry (issues, plan rows). */
  productsLabel: string;
  options: OptionsSource;
  optionsInfo?: SheetInfo;
  optionsLabel?: string;
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
  let reader = readSheet(options.file, options.read);
  let info = await reader.open();
  // A workbook without --sheet: its `products` sheet when it has one, else the first.
  if (info.format === 'xlsx' && options.read?.sheet === undefined) {
    const named = info.sheetNames.find((n) => n.toLowerCase() === 'products');
    if (named !== undefined && named !== info.sheet) {
      await reader.close();
      reader = readSheet(options.file, { ...options.read, sheet: named });
      info = await reader.open();
    }
  }
  const productsLabel = info.sheet;
  const mapper = new ProductSheetMapper(importableColumns(info.columns), {
    ...options.mapping,
    sheetName: productsLabel,
  });
  let rows = 0;
  const stamped = info.columns.some((c) => c.key === EXPORTED_AT_COLUMN);
  let exportedAt = Number.POSITIVE_INFINITY;
  let unreadableAt: number | undefined;
  for await (const batch of reader.batches()) {
    for (const row of batch) {
      mapper.addRow(cleanRow(row, productsLabel));
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

  let source: OptionsSource = { kind: 'none' };
  let optionsInfo: SheetInfo | undefined;
  let optionsLabel: string | undefined;
  let optionsReader;
  if (options.optionsFile !== undefined) {
    optionsReader = readSheet(options.optionsFile, {});
    optionsInfo = await optionsReader.open();
    source = {
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
      source = { kind: 'workbook', sheet: ci.sheet };
    } else await candidate.close();
  }
  if (optionsReader !== undefined && optionsInfo !== undefined) {
    optionsLabel = optionsInfo.sheet === productsLabel ? `options:${optionsInfo.sheet}` : optionsInfo.sheet;
    if (source.kind === 'file' && optionsInfo.format === 'csv' && optionsLabel === productsLabel) {
      optionsLabel = basename(options.optionsFile ?? 'options');
    }
    mapper.setOptionColumns(importableColumns(optionsInfo.columns), optionsLabel);
    for await (const batch of optionsReader.batches()) {
      for (const row of batch) mapper.addOptionRow(cleanRow(row, optionsLabel));
      rows += batch.length;
      options.onProgress?.({ phase: 'read', done: rows });
    }
    for (const w of optionsReader.warnings) options.onWarning?.(fileWarning(optionsInfo.file, w.message));
  }
  const mapping = mapper.finish();
  const fatal = mapping.issues.filter((i) => i.severity === 'error' && HEADER_ERRORS.has(i.code));
  if (fatal.length > 0) {
    throw new SheetHeaderError(
      `${options.file}: ${fatal.map((i) => `${i.sheet}: ${i.message}`).join('; ')}`,
      fatal,
    );
  }
  const result: ProductSheets = {
    mapping,
    products: info,
    productsLabel,
    options: source,
    rows,
    productRows,
    seconds: (performance.now() - started) / 1000,
  };
  if (Number.isFinite(exportedAt)) result.exportedAt = new Date(exportedAt).toISOString();
  if (optionsInfo !== undefined) result.optionsInfo = optionsInfo;
  if (optionsLabel !== undefined) result.optionsLabel = optionsLabel;
  return result;
}

/** Issues of a mapping that belong to no product (header warnings, rows without a key…). */
export function looseIssues(mapping: ProductMapping): RowIssue[] {
  const owned = new Set<RowIssue>();
  for (const p of mapping.products) for (const i of p.issues) owned.add(i);
  return mapping.issues.filter((i) => !owned.has(i));
}

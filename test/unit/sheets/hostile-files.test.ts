import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSheet } from '../../../src/sheets/read-sheet.js';
import type { SheetLimits } from '../../../src/sheets/read-sheet.js';
import { SheetError } from '../../../src/sheets/sheet-error.js';
import { letters, workbookParts, writeZip } from '../../helpers/hostile-files.js';

/**
 * Issue 11, the limits of the readers one by one, on files built here (the CLI-level set with the
 * reported files is test/integration/cli/hostile-files.test.ts). Where the real limit costs
 * hundreds of MiB of inflating to reach (a part that lies about its size but compresses like real
 * data), the limit is passed lower through `limits`: the same check, reached sooner.
 */
const dir = mkdtempSync(join(tmpdir(), 'mbulk-hostile-unit-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MiB = 1024 * 1024;
const SHEET_HEAD =
  '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
const SHEET_TAIL = '</sheetData></worksheet>';
const HEADER_ROW =
  '<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>quantity</t></is></c></row>';
const SMALL_SHEET = Buffer.from(
  `${SHEET_HEAD}${HEADER_ROW}<row r="2"><c r="A2" t="inlineStr"><is><t>A-1</t></is></c><c r="B2"><v>5</v></c></row>${SHEET_TAIL}`,
);
/** 1 MiB of text that compresses like text (~1.6×): no ratio limit applies to it. */
const TEXT = letters(MiB);

async function refusal(file: string, limits?: Partial<SheetLimits>): Promise<SheetError> {
  try {
    for await (const _ of readSheet(file, { limits })) {
      // drain
    }
  } catch (error) {
    expect(error).toBeInstanceOf(SheetError);
    expect((error as SheetError).message).toContain(file);
    return error as SheetError;
  }
  throw new Error(`${file} was read`);
}

describe('XLSX parts: declared and actual inflated size, compression ratio', () => {
  it('shared strings that understate their size are refused by the bytes actually inflated', async () => {
    const file = join(dir, 'sst-lies.xlsx');
    let items = ''; // distinct strings, so that they compress like real ones
    for (let at = 0; items.length < MiB - 300; at += 200)
      items += `<si><t>${TEXT.slice(at, at + 200)}</t></si>`;
    writeZip(
      file,
      workbookParts(SMALL_SHEET, {
        head: '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">',
        body: items,
        repeat: 8, // 8 MiB once inflated, declared as 4 KiB
        tail: '</sst>',
        declare: { uncompressed: 4096 },
      }),
    );
    const error = await refusal(file, { maxSharedStringsBytes: 6 * MiB });
    expect(error.code).toBe('xlsx_part_too_large');
    expect(error.message).toMatch(
      /xl\/sharedStrings\.xml \(the shared strings\) inflates past the limit of 6\.0 MiB/,
    );
    // Its compressed size (~4.6 MiB: text compresses ~1.7×) alone is over a 4 MiB limit.
    const compressed = await refusal(file, { maxSharedStringsBytes: 4 * MiB });
    expect(compressed.message).toMatch(
      /xl\/sharedStrings\.xml \(the shared strings\) is 4\.\d MiB compressed, over the limit of 4\.0 MiB inflated/,
    );
    // Read in full, the same file is accepted under the default limit: the check is the size.
    await expect(readSheet(file).columns()).resolves.toHaveLength(2);
  });

  it('shared strings are capped at 64 MiB by default (held in memory while the sheet is read): one byte over is refused unread', async () => {
    // Issue 22: 480 MiB of shared strings at a low ratio took 1.08 GB and 35 s. Declared sizes are
    // checked before any byte is inflated, so the default cap is tested here without 64 MiB of XML.
    const sheet = Buffer.from(
      `${SHEET_HEAD}${HEADER_ROW}<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2"><v>5</v></c></row>${SHEET_TAIL}`,
    );
    const at = (declared: number) => {
      const file = join(dir, `sst-declares-${declared}.xlsx`);
      writeZip(
        file,
        workbookParts(sheet, {
          head: '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">',
          body: '',
          repeat: 0,
          tail: '<si><t>SKU-1</t></si></sst>',
          declare: { uncompressed: declared },
        }),
      );
      return file;
    };
    // The declared sizes lie about a tiny part: the ratio limit is lifted to leave the size cap alone.
    const limits = { maxInflateRatio: 1e9 };
    const over = await refusal(at(64 * MiB + 1), limits);
    expect(over.code).toBe('xlsx_part_too_large');
    expect(over.message).toMatch(
      /\(the shared strings\) declares 64\.0 MiB once inflated, over the limit of 64\.0 MiB/,
    );
    const rows = [];
    for await (const row of readSheet(at(64 * MiB), { limits })) rows.push(row.cells);
    expect(rows).toEqual([{ sku: 'SKU-1', quantity: 5 }]);
  });

  it('a sheet part over the sheet limit: by its declared size, then by its actual size', async () => {
    const row = `<row r="2"><c r="A2" t="inlineStr"><is><t>${TEXT.slice(0, 1000)}</t></is></c></row>`;
    const sheet = (declare?: { uncompressed: number }) => ({
      head: `${SHEET_HEAD}${HEADER_ROW}`,
      body: row.repeat(Math.floor(MiB / row.length)),
      repeat: 6,
      tail: SHEET_TAIL,
      ...(declare ? { declare } : {}),
    });
    const honest = join(dir, 'sheet-honest.xlsx');
    writeZip(honest, workbookParts(sheet()));
    const declared = await refusal(honest, { maxSheetBytes: 4 * MiB });
    expect(declared.code).toBe('xlsx_part_too_large');
    expect(declared.message).toMatch(
      /xl\/worksheets\/sheet1\.xml \(the sheet data\) declares 6\.0 MiB once inflated, over the limit of 4\.0 MiB/,
    );
    const lying = join(dir, 'sheet-lies.xlsx');
    writeZip(lying, workbookParts(sheet({ uncompressed: 4096 })));
    const actual = await refusal(lying, { maxSheetBytes: 4 * MiB });
    expect(actual.message).toMatch(
      /xl\/worksheets\/sheet1\.xml \(the sheet data\) inflates past the limit of 4\.0 MiB/,
    );
  });

  it.each([
    ['xl/workbook.xml', 'workbook-bomb.xlsx'],
    ['xl/_rels/workbook.xml.rels', 'rels-bomb.xlsx'],
    ['xl/styles.xml', 'styles-bomb.xlsx'],
  ])('%s that inflates 1000× (declared 4 KiB) is refused at the real 200× limit', async (part, name) => {
    const file = join(dir, name);
    const parts = workbookParts(SMALL_SHEET);
    const original =
      (parts[part] as Buffer | undefined)?.toString('latin1') ??
      '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"></styleSheet>';
    const close = original.lastIndexOf('</');
    parts[part] = {
      head: original.slice(0, close),
      body: ' '.repeat(MiB),
      repeat: 50,
      tail: original.slice(close),
      declare: { uncompressed: 4096 },
    };
    writeZip(file, parts);
    const error = await refusal(file);
    expect(error.code).toBe('xlsx_part_too_large');
    expect(error.message).toContain(`its part ${part}`);
    expect(error.message).toMatch(/more than 200× \(the limit\)/);
  });
});

describe('cells past the limit are named as such, from the file as it streams', () => {
  it('XLSX: a row without its number (r) is named, not "Invalid Address: ANaN"', async () => {
    const file = join(dir, 'row-without-r.xlsx');
    writeZip(
      file,
      workbookParts(Buffer.from(`${SHEET_HEAD}${HEADER_ROW}<row><c r="A2"><v>1</v></c></row>${SHEET_TAIL}`)),
    );
    const error = await refusal(file);
    expect(error.code).toBe('corrupt_xlsx');
    expect(error.message).toMatch(
      /sheet "stock", the row after row 1 has no row number \(its r attribute is missing\)/,
    );
    expect(error.message).not.toMatch(/ANaN|valid spreadsheet XML/);
  });

  it('XLSX: a shared string longer than any cell (not a bomb: text) is refused by the cell limit', async () => {
    const file = join(dir, 'long-shared-string.xlsx');
    writeZip(
      file,
      workbookParts(SMALL_SHEET, {
        head: '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>',
        body: TEXT,
        repeat: 3,
        tail: '</t></si></sst>',
      }),
    );
    const error = await refusal(file);
    expect(error.code).toBe('cell_too_long');
    expect(error.message).toMatch(
      /shared string 1 \(xl\/sharedStrings\.xml\) runs for more than 384\.0 KiB of XML: longer than the limit of 32,767 characters per cell/,
    );
  });

  it('CSV: a closed quoted cell of 17 MiB is a cell over the limit, with its length', async () => {
    const file = join(dir, 'long-quoted.csv');
    writeFileSync(file, `sku,quantity\nA-1,"${'x'.repeat(17 * MiB)}"\n`);
    const error = await refusal(file);
    expect(error.code).toBe('cell_too_long');
    expect(error.message).toMatch(/cell B2 holds 17,825,792 characters, more than the limit of 32,767/);
  });

  it('CSV: a quote never closed is named as such (not as a long cell), with its row', async () => {
    const file = join(dir, 'unclosed.csv');
    writeFileSync(file, `sku,quantity\nA-1,"5\n${'B-2,6\n'.repeat(MiB)}`);
    const error = await refusal(file);
    expect(error.code).toBe('unterminated_quote');
    expect(error.message).toMatch(/a quoted cell starting on row 2 is never closed/);
  });

  it('CSV: a quoted cell still open after 16 MiB is named by its cell, both causes said', async () => {
    const file = join(dir, 'unclosed-long.csv');
    writeFileSync(file, `sku,quantity\nA-1,"5\n${'B-2,6\n'.repeat(7 * MiB)}`);
    const error = await refusal(file);
    expect(error.code).toBe('unterminated_quote');
    expect(error.message).toMatch(
      /the quoted cell B2 runs for more than 16 MiB without its closing quote: the quote is never closed, or the cell is far longer than the limit of 32,767 characters/,
    );
  });

  it('CSV: a long quoted cell under 16 MiB, closed, is over the cell limit with its length', async () => {
    const file = join(dir, 'quoted-40k.csv');
    writeFileSync(file, `sku,quantity\nA-1,"${'x'.repeat(40_000)}"\n`);
    const error = await refusal(file);
    expect(error.code).toBe('cell_too_long');
    expect(error.message).toMatch(/cell B2 holds 40,000 characters, more than the limit of 32,767/);
  });
});

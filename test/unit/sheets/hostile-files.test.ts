import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSheet } from '../../../src/sheets/read-sheet.js';
import { SheetError } from '../../../src/sheets/sheet-error.js';
import { writeHostileFiles } from '../../helpers/hostile-files.js';
import { runCli } from '../../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mbulk-hostile-'));
// Smaller than the reported files (bench/hostile-files.bench.ts runs those), above every limit.
const files = writeHostileFiles(dir, {
  bombMiB: 64,
  wideCells: 20_000,
  csvColumns: 2_000_000,
  unknownHeaders: 200_000,
  cellMiB: 50,
});

async function readAll(file: string): Promise<unknown> {
  try {
    for await (const _ of readSheet(file)) {
      // drain
    }
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('hostile files are refused with the file and the limit named', () => {
  it.each([
    ['zip-bomb.xlsx', 'xlsx_part_too_large', /shared strings.*200×/],
    ['wide-row.xlsx', 'too_many_columns', /16,384 columns/],
    ['wide.csv', 'too_many_columns', /16,384 columns/],
    ['unknown-headers.csv', 'too_many_columns', /16,384 columns/],
    ['huge-cell.csv', 'row_too_long', /no line break/],
  ])('%s', async (name, code, message) => {
    const file = files[name] as string;
    const error = await readAll(file);
    expect(error).toBeInstanceOf(SheetError);
    expect((error as SheetError).code, (error as Error).message).toBe(code);
    expect((error as SheetError).message).toContain(file);
    expect((error as SheetError).message).toMatch(message);
    expect((error as SheetError).message).not.toMatch(/quote/);
  });

  it('through the CLI: 200k unknown columns exit 2 naming the file, no stack overflow', async () => {
    const r = await runCli(
      [
        'import',
        'stock',
        files['unknown-headers.csv'] as string,
        '--sandbox-data',
        join(dir, 'sandbox.json'),
      ],
      {},
      dir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown-headers.csv');
    expect(r.stderr).toContain('16,384');
    expect(r.stderr).not.toContain('call stack');
  });
});

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSheetWriter } from '../../../src/sheets/create-sheet-writer.js';
import { type SheetSpec } from '../../../src/sheets/sheet-writer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-atomic-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const spec: SheetSpec = { name: 'orders', columns: [{ key: 'id', header: 'id', type: 'text' }] };
const PREVIOUS = 'the previous, complete export\n';

async function leftovers(): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.tmp'));
}

describe.each(['csv', 'xlsx'] as const)('%s writer output is atomic', (format) => {
  it('an export that fails midway (abort) leaves the previous file untouched', async () => {
    const path = join(dir, `abort.${format}`);
    await writeFile(path, PREVIOUS);
    const writer = createSheetWriter(path, { format, currencyDecimals: 2 });
    const sheet = await writer.addSheet(spec);
    for (let i = 0; i < 50; i++) await sheet.write({ id: `ord_${i}` });
    // While rows are being written the target still holds the previous export.
    expect(await readFile(path, 'utf8')).toBe(PREVIOUS);
    await writer.abort();
    expect(await readFile(path, 'utf8')).toBe(PREVIOUS);
    expect(await leftovers()).toEqual([]);
  });

  it('a folder as target fails when the sheet is added (EISDIR), not after every row was written', async () => {
    const path = join(dir, `folder.${format}`);
    await mkdir(path);
    const writer = createSheetWriter(path, { format, currencyDecimals: 2 });
    await expect(writer.addSheet(spec)).rejects.toThrow(/EISDIR/);
    await writer.close().catch(() => undefined);
    expect(await leftovers()).toEqual([]);
  });

  it('a complete export replaces the file on close, with no temporary file left', async () => {
    const path = join(dir, `done.${format}`);
    await writeFile(path, PREVIOUS);
    const writer = createSheetWriter(path, { format, currencyDecimals: 2 });
    const sheet = await writer.addSheet(spec);
    await sheet.write({ id: 'ord_1' });
    await writer.close();
    const bytes = await readFile(path);
    if (format === 'csv') expect(bytes.toString('utf8')).toBe('\ufeffid\r\nord_1\r\n');
    else expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(await leftovers()).toEqual([]);
  });
});

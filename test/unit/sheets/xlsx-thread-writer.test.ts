/**
 * The XLSX workbook written in a worker thread (`thread: true`, XlsxThreadWriter; issue 41) must be
 * the file the calling-thread writer makes, member for member, for every kind of cell and every
 * path a row takes (the streaming sheet, spooled sheets copied in later, rows bigger than one
 * chunk, a sheet with no rows); another reader (exceljs) must open it; and a worker that dies is a
 * clear error, not a hang, that leaves no file behind.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSheetWriter } from '../../../src/sheets/create-sheet-writer.js';
import type { SheetSpec, SheetWriter } from '../../../src/sheets/sheet-writer.js';
import { XlsxThreadWriter } from '../../../src/sheets/xlsx-thread-writer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-xlsx-thread-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const columns: SheetSpec['columns'] = [
  { key: 'id', header: 'id', type: 'text', note: 'The row id' },
  { key: 'total', header: 'total', type: 'money' },
  { key: 'quantity', header: 'quantity', type: 'integer' },
  { key: 'rate', header: 'rate', type: 'number' },
  { key: 'paid', header: 'paid', type: 'boolean' },
  { key: 'at', header: 'at', type: 'datetime' },
  { key: 'day', header: 'day', type: 'date' },
  { key: 'note', header: 'note', type: 'text', width: 40 },
];

/** Row i: every type, text with XML specials, control characters, CR, `_x` escapes, non-Latin-1 and astral characters, formulas. */
function row(i: number): Record<string, unknown> {
  const texts = [
    'plain',
    '<b>&"\'</b>',
    'line\r\nbreak\u0001\u007f',
    '_x0041_ literal',
    'Gr\u00fc\u00dfe \u4e2d\u6587 \ud83d\ude00',
    '=SUM(A1:A2)',
    '',
  ];
  return {
    id: `r${i}`,
    total: i % 11 === 0 ? null : i * 137 - 5000,
    quantity: i % 7,
    rate: i / 8,
    paid: i % 3 === 0,
    at: i % 5 === 0 ? null : `2026-0${1 + (i % 9)}-1${i % 10}T0${i % 10}:15:00Z`,
    day: i % 4 === 0 ? '' : `2026-11-${10 + (i % 19)}`,
    note: texts[i % texts.length],
  };
}

/** A workbook of three sheets and a summary shown first, as the order export writes them. */
async function write(writer: SheetWriter, rows: number): Promise<void> {
  const first = await writer.addSheet({ name: 'orders', columns });
  const second = await writer.addSheet({ name: 'lines', columns });
  const empty = await writer.addSheet({ name: 'checks', columns });
  const summary = await writer.addSheet({
    name: 'summary',
    columns: columns.slice(0, 3),
    firstTab: true,
    print: { landscape: true, onePage: true, title: 'Store & co: all orders' },
  });
  for (let i = 0; i < rows; i++) {
    let wait = first.write(row(i));
    if (wait) await wait;
    wait = second.write(row(i + 1));
    if (wait) await wait;
    if (i % 3 === 0) {
      wait = second.write(row(i + 2));
      if (wait) await wait;
    }
    // A row with no cell (no XML) still takes its row number.
    if (i === 10) {
      wait = second.write({});
      if (wait) await wait;
    }
  }
  // Bigger than one chunk sent to the worker (256 KB): sent alone.
  const big = first.write({ id: 'big', note: 'x'.repeat(32_000) + '\u4e2d'.repeat(20_000) });
  if (big) await big;
  await summary.write({ id: 'total', total: 12345, quantity: rows });
  await summary.end();
  await first.end();
  await second.end();
  await empty.end();
  await writer.close();
}

/** Every member of the zip, docProps/core.xml's two dates of writing left out. */
async function members(path: string): Promise<Record<string, string>> {
  const zip = await JSZip.loadAsync(await readFile(path));
  const out: Record<string, string> = {};
  for (const name of Object.keys(zip.files).sort()) {
    const entry = zip.files[name];
    if (!entry || entry.dir) continue;
    const text = await entry.async('string');
    out[name] =
      name === 'docProps/core.xml' ? text.replace(/(<dcterms:(?:created|modified)[^>]*>)[^<]*/g, '$1') : text;
  }
  return out;
}

const options = { format: 'xlsx' as const, currencyDecimals: 2, timezone: 'Asia/Jakarta' };

describe('XLSX written in a worker thread', () => {
  it('is the workbook the calling thread writes, member for member, and exceljs reads it', async () => {
    const inThread = join(dir, 'thread.xlsx');
    const here = join(dir, 'here.xlsx');
    const threaded = createSheetWriter(inThread, { ...options, thread: true });
    expect(threaded).toBeInstanceOf(XlsxThreadWriter);
    await write(threaded, 1500);
    await write(createSheetWriter(here, options), 1500);
    const a = await members(inThread);
    const b = await members(here);
    expect(Object.keys(a)).toEqual(Object.keys(b));
    for (const name of Object.keys(b)) expect(a[name], name).toBe(b[name]);
    expect(a['xl/worksheets/sheet1.xml']?.length).toBeGreaterThan(500_000);

    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(inThread);
    expect(book.worksheets.map((w) => w.name)).toEqual(['summary', 'orders', 'lines', 'checks']);
    const orders = book.getWorksheet('orders');
    expect(orders?.rowCount).toBe(1502);
    expect(orders?.getRow(6).getCell(8).value).toBe('Gr\u00fc\u00dfe \u4e2d\u6587 \ud83d\ude00');
    expect(book.getWorksheet('lines')?.rowCount).toBe(1 + 1500 + 500 + 1);
  });

  it('a worker that dies fails the writer with a clear error and leaves no file', async () => {
    const sub = await mkdtemp(join(dir, 'dies-'));
    const path = join(sub, 'orders.xlsx');
    await writeFile(path, 'older file');
    const writer = createSheetWriter(path, { ...options, thread: true });
    const sheet = await writer.addSheet({ name: 'orders', columns });
    const spooled = await writer.addSheet({ name: 'lines', columns });
    for (let i = 0; i < 600; i++) {
      let wait = sheet.write(row(i));
      if (wait) await wait;
      wait = spooled.write(row(i));
      if (wait) await wait;
    }
    // The thread stops as a crash would stop it (its own exception, or memory).
    const worker = (writer as unknown as { worker: Worker }).worker;
    await worker.terminate();
    const failure = /cannot write .*orders\.xlsx: the XLSX writer's thread stopped/;
    expect(() => sheet.write(row(1))).toThrow(failure);
    await expect(sheet.end()).rejects.toThrow(failure);
    await expect(writer.close()).rejects.toThrow(failure);
    expect(await readdir(sub)).toEqual(['orders.xlsx']);
    expect(await readFile(path, 'utf8')).toBe('older file');
  });

  it('aborted, it leaves the older file and no temporary file', async () => {
    const sub = await mkdtemp(join(dir, 'abort-'));
    const path = join(sub, 'orders.xlsx');
    await writeFile(path, 'older file');
    const writer = createSheetWriter(path, { ...options, thread: true });
    const sheet = await writer.addSheet({ name: 'orders', columns });
    await writer.addSheet({ name: 'lines', columns });
    for (let i = 0; i < 600; i++) {
      const wait = sheet.write(row(i));
      if (wait) await wait;
    }
    await writer.abort();
    expect(await readdir(sub)).toEqual(['orders.xlsx']);
    expect(await readFile(path, 'utf8')).toBe('older file');
  });

  it('reports what the workbook refuses as the calling-thread writer does', async () => {
    const writer = createSheetWriter(join(dir, 'names.xlsx'), { ...options, thread: true });
    await expect(writer.addSheet({ name: 'a/b', columns })).rejects.toThrow(RangeError);
    await expect(writer.addSheet({ name: 'a/b', columns })).rejects.toThrow(/invalid XLSX sheet name "a\/b"/);
    await writer.abort();
    const folder = await mkdtemp(join(dir, 'folder-'));
    const intoFolder = createSheetWriter(folder, { ...options, thread: true });
    await expect(intoFolder.addSheet({ name: 'orders', columns })).rejects.toThrow(/cannot write/);
    await intoFolder.abort();
  });
});

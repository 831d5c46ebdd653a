import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { columnLetter } from '../../src/sheets/sheet-row.js';

/** A minimal ZIP (deflate, no zip64) of the given parts: enough for an XLSX the readers open. */
export function zipParts(parts: Record<string, Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of Object.entries(parts)) {
    const packed = deflateRawSync(data, { level: 9 });
    const nameBytes = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(parts).length, 8);
  end.writeUInt16LE(Object.keys(parts).length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** The parts of a one-sheet workbook (sheet `stock`, part xl/worksheets/sheet1.xml) but the sheet. */
function xlsxShell(): Record<string, Buffer> {
  return {
    '[Content_Types].xml': Buffer.from(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    ),
    '_rels/.rels': Buffer.from(
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    ),
    'xl/workbook.xml': Buffer.from(
      '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="stock" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    'xl/_rels/workbook.xml.rels': Buffer.from(
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
  };
}

/** An XLSX with one sheet `stock` whose XML is `sheetXml`, and optional shared strings. */
export function xlsxWith(sheetXml: Buffer, sharedStrings?: Buffer): Buffer {
  const parts: Record<string, Buffer> = { ...xlsxShell(), 'xl/worksheets/sheet1.xml': sheetXml };
  if (sharedStrings) parts['xl/sharedStrings.xml'] = sharedStrings;
  return zipParts(parts);
}

const SHEET_HEAD =
  '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
const SHEET_TAIL = '</sheetData></worksheet>';

/**
 * A ZIP part too large to build in memory: `head`, then `body` repeated `repeat` times, then
 * `tail`. Each piece is deflated once with a full flush (byte-aligned, no reference to earlier
 * data), so the repeated compressed body is a valid stream: gigabytes inflated from a few MB
 * written, in seconds. `declare` replaces the sizes written in the ZIP headers (a bomb that lies).
 */
export interface RepeatedPart {
  head: string;
  body: string;
  repeat: number;
  tail: string;
  declare?: { compressed?: number; uncompressed?: number };
}

/** Writes a ZIP of `parts` (small ones as Buffers, huge ones as RepeatedPart) to `path`, streaming. */
export function writeZip(path: string, parts: Record<string, Buffer | RepeatedPart>): void {
  const fd = openSync(path, 'w');
  const centrals: Buffer[] = [];
  let offset = 0;
  const write = (data: Buffer) => {
    writeSync(fd, data);
    offset += data.length;
  };
  try {
    for (const [name, part] of Object.entries(parts)) {
      const spec: RepeatedPart = Buffer.isBuffer(part)
        ? { head: '', body: '', repeat: 0, tail: part.toString('latin1') }
        : part;
      const flush = { level: 9, finishFlush: constants.Z_FULL_FLUSH };
      const head = Buffer.from(spec.head, 'latin1');
      const body = Buffer.from(spec.body, 'latin1');
      const tail = Buffer.from(spec.tail, 'latin1');
      const packedHead = deflateRawSync(head, flush);
      const packedBody = deflateRawSync(body, flush);
      const packedTail = deflateRawSync(tail, { level: 9 });
      let crc = crc32(head);
      for (let i = 0; i < spec.repeat; i++) crc = crc32(body, crc);
      crc = crc32(tail, crc);
      const compressed = packedHead.length + packedBody.length * spec.repeat + packedTail.length;
      const uncompressed = head.length + body.length * spec.repeat + tail.length;
      if (compressed >= 2 ** 32 || uncompressed >= 2 ** 32)
        throw new Error(`${name}: too large for a ZIP without zip64`);
      const declaredCompressed = spec.declare?.compressed ?? compressed;
      const declaredUncompressed = spec.declare?.uncompressed ?? uncompressed;
      const nameBytes = Buffer.from(name);
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(8, 8);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(declaredCompressed, 18);
      local.writeUInt32LE(declaredUncompressed, 22);
      local.writeUInt16LE(nameBytes.length, 26);
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(20, 4);
      central.writeUInt16LE(20, 6);
      central.writeUInt16LE(8, 10);
      central.writeUInt32LE(crc, 16);
      // The compressed size must stay true for the data to be found; only the inflated size lies.
      central.writeUInt32LE(compressed, 20);
      central.writeUInt32LE(declaredUncompressed, 24);
      central.writeUInt16LE(nameBytes.length, 28);
      central.writeUInt32LE(offset, 42);
      centrals.push(central, nameBytes);
      write(local);
      write(nameBytes);
      write(packedHead);
      for (let i = 0; i < spec.repeat; i++) write(packedBody);
      write(packedTail);
    }
    const cd = Buffer.concat(centrals);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(centrals.length / 2, 8);
    end.writeUInt16LE(centrals.length / 2, 10);
    end.writeUInt32LE(cd.length, 12);
    end.writeUInt32LE(offset, 16);
    write(cd);
    write(end);
  } finally {
    closeSync(fd);
  }
}

/** The parts of a one-sheet workbook (sheet `stock`) around the given sheet and shared strings (override any). */
export function workbookParts(
  sheet: Buffer | RepeatedPart,
  sharedStrings?: Buffer | RepeatedPart,
): Record<string, Buffer | RepeatedPart> {
  const shell = xlsxShell();
  const parts: Record<string, Buffer | RepeatedPart> = { ...shell, 'xl/worksheets/sheet1.xml': sheet };
  if (sharedStrings) parts['xl/sharedStrings.xml'] = sharedStrings;
  return parts;
}

/** A row of `cells` numeric cells whose addresses cycle through A..XFD (valid references). */
function cycleOfCells(row: number): string {
  let xml = '';
  for (let i = 0; i < 16_384; i++) xml += `<c r="${columnLetter(i)}${row}"><v>1</v></c>`;
  return xml;
}

const MiB = 1024 * 1024;

/** `n` pseudo-random letters (a fixed sequence): text that compresses like text, ~1.6×. */
export function letters(n: number): string {
  let x = 2463534242;
  let out = '';
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += String.fromCharCode(97 + ((x >>> 0) % 26));
  }
  return out;
}

/** Sizes of the hostile files; `ISSUE_SIZES` are those of issue 11's report. */
export interface HostileSizes {
  /** Shared strings (and the sheet bomb): MiB once inflated. */
  bombMiB: number;
  /** Cells of the one-row sheet. */
  wideCells: number;
  /** Columns of the wide CSV. */
  csvColumns: number;
  /** Unknown headers (CSV and XLSX), beside sku and quantity. */
  unknownHeaders: number;
  /** The huge unquoted CSV cell and the huge XLSX inline string, in MiB. */
  cellMiB: number;
  /** Shared strings of short distinct-looking strings (compressing ~2.5×, no ratio limit applies): MiB once inflated. */
  lowRatioMiB: number;
}

export const ISSUE_SIZES: Readonly<HostileSizes> = Object.freeze({
  bombMiB: 2500, // "a 6.2 MB XLSX whose shared strings inflate to 2.5 GB"
  wideCells: 60_000_000, // "a one-row sheet of 60M cells"
  csvColumns: 2_000_000, // "a 2M-column CSV"
  unknownHeaders: 200_000, // "~200k unknown columns"
  cellMiB: 50, // "a 50 MB unquoted CSV cell"
  lowRatioMiB: 480, // issue 22: "shared strings inflating to 480 MiB at a low ratio"
});

/**
 * A stock workbook whose shared strings are MIB MiB of 20-letter strings once inflated: ~2.5× (no
 * ratio limit applies), honest sizes, cell A2 the first string (issue 22).
 */
export function writeLowRatioSharedStrings(path: string, mib: number): void {
  const pool = letters(MiB);
  let items = '';
  for (let i = 0; items.length < MiB - 64; i = (i + 20) % (MiB - 20))
    items += `<si><t>${pool.slice(i, i + 20)}</t></si>`;
  const sheet = `${SHEET_HEAD}<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>quantity</t></is></c></row><row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2"><v>5</v></c></row>${SHEET_TAIL}`;
  writeZip(
    path,
    workbookParts(Buffer.from(sheet), {
      head: '<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">',
      body: items,
      repeat: mib,
      tail: '</sst>',
    }),
  );
}

/**
 * The hostile files of issue 11, written to `dir` (streamed: the largest inflates to gigabytes
 * from a few MB, and nothing of that size is held in memory). Each is a stock sheet (`sku`,
 * `quantity`) made unreadable one way.
 */
export function writeHostileFiles(dir: string, sizes: HostileSizes): Record<string, string> {
  const files: Record<string, string> = {};
  const at = (name: string) => (files[name] = join(dir, name));
  const headerRow =
    '<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>quantity</t></is></c></row>';
  const smallSheet = Buffer.from(
    `${SHEET_HEAD}${headerRow}<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2"><v>5</v></c></row>${SHEET_TAIL}`,
  );
  // Shared strings of short strings repeated: ~1000× compression. Honest sizes, then lying ones.
  const item = `<si><t>${'A'.repeat(100)}</t></si>`;
  const bomb = (declare?: RepeatedPart['declare']): RepeatedPart => ({
    head: '<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">',
    body: item.repeat(Math.floor(MiB / item.length)),
    repeat: sizes.bombMiB,
    tail: '</sst>',
    ...(declare ? { declare } : {}),
  });
  writeZip(at('zip-bomb.xlsx'), workbookParts(smallSheet, bomb()));
  writeLowRatioSharedStrings(at('shared-strings-low-ratio.xlsx'), sizes.lowRatioMiB);
  writeZip(at('zip-bomb-lying.xlsx'), workbookParts(smallSheet, bomb({ uncompressed: 4096 })));
  // A sheet whose XML is gigabytes of identical rows (~1000×), its inflated size understated.
  const row = '<row r="2"><c r="A2"><v>1</v></c></row>';
  writeZip(
    at('sheet-bomb.xlsx'),
    workbookParts({
      head: `${SHEET_HEAD}${headerRow}`,
      body: row.repeat(Math.floor(MiB / row.length)),
      repeat: sizes.bombMiB,
      tail: SHEET_TAIL,
      declare: { uncompressed: 4096 },
    }),
  );
  // One row of `wideCells` cells, addresses cycling A..XFD (so each one is a valid reference).
  const cycle = cycleOfCells(1);
  writeZip(
    at('wide-row.xlsx'),
    workbookParts({
      head: `${SHEET_HEAD}<row r="1">`,
      body: cycle,
      repeat: Math.ceil(sizes.wideCells / 16_384),
      tail: `</row>${SHEET_TAIL}`,
    }),
  );
  // A 2M-column CSV: header and one row.
  writeFileSync(at('wide.csv'), `${'c,'.repeat(sizes.csvColumns)}c\n${'1,'.repeat(sizes.csvColumns)}1\n`);
  // sku, quantity and `unknownHeaders` columns nobody knows, as CSV and XLSX.
  const extra: string[] = [];
  for (let i = 0; i < sizes.unknownHeaders; i++) extra.push(`x${i}`);
  writeFileSync(at('unknown-headers.csv'), `sku,quantity,${extra.join(',')}\nSKU-1,5\n`);
  let headerCells = '';
  for (let i = 0; i < sizes.unknownHeaders; i++)
    headerCells += `<c r="${i < 16_382 ? columnLetter(i + 2) : 'XFD'}1" t="inlineStr"><is><t>x${i}</t></is></c>`;
  writeZip(
    at('unknown-headers.xlsx'),
    workbookParts(
      Buffer.from(
        `${SHEET_HEAD}<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>quantity</t></is></c>${headerCells}</row><row r="2"><c r="A2" t="inlineStr"><is><t>SKU-1</t></is></c><c r="B2"><v>5</v></c></row>${SHEET_TAIL}`,
      ),
    ),
  );
  // One unquoted cell of `cellMiB` MiB, as CSV; and one inline string of that size, as XLSX.
  const fd = openSync(at('huge-cell.csv'), 'w');
  try {
    writeSync(fd, 'sku,quantity\n');
    const block = Buffer.alloc(MiB, 'A');
    for (let i = 0; i < sizes.cellMiB; i++) writeSync(fd, block);
    writeSync(fd, ',5\n');
  } finally {
    closeSync(fd);
  }
  writeZip(
    at('huge-cell.xlsx'),
    workbookParts({
      head: `${SHEET_HEAD}${headerRow}<row r="2"><c r="A2" t="inlineStr"><is><t>`,
      body: letters(MiB), // not repetitive: no compression ratio limit applies
      repeat: sizes.cellMiB,
      tail: `</t></is></c><c r="B2"><v>5</v></c></row>${SHEET_TAIL}`,
    }),
  );
  return files;
}

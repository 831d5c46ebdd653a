import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
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

/** An XLSX with one sheet `stock` whose XML is `sheetXml`, and optional shared strings. */
export function xlsxWith(sheetXml: Buffer, sharedStrings?: Buffer): Buffer {
  const parts: Record<string, Buffer> = {
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
    'xl/worksheets/sheet1.xml': sheetXml,
  };
  if (sharedStrings) parts['xl/sharedStrings.xml'] = sharedStrings;
  return zipParts(parts);
}

const SHEET_HEAD =
  '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
const SHEET_TAIL = '</sheetData></worksheet>';

/** The hostile files of issue 11, generated at `scale` (1: the sizes reported; tests use less). */
export function writeHostileFiles(
  dir: string,
  scale: { bombMiB: number; wideCells: number; csvColumns: number; unknownHeaders: number; cellMiB: number },
): Record<string, string> {
  const files: Record<string, string> = {};
  // Shared strings that inflate ~1000×: one string of `bombMiB` MiB of one letter.
  const bomb = Buffer.alloc(scale.bombMiB * 1024 * 1024 + 64, 'A');
  Buffer.from('<sst><si><t>').copy(bomb, 0);
  Buffer.from('</t></si></sst>').copy(bomb, bomb.length - 15);
  files['zip-bomb.xlsx'] = join(dir, 'zip-bomb.xlsx');
  writeFileSync(
    files['zip-bomb.xlsx'],
    xlsxWith(Buffer.from(`${SHEET_HEAD}<row r="1"><c r="A1" t="s"><v>0</v></c></row>${SHEET_TAIL}`), bomb),
  );
  // One row of `wideCells` cells.
  files['wide-row.xlsx'] = join(dir, 'wide-row.xlsx');
  writeFileSync(
    files['wide-row.xlsx'],
    xlsxWith(
      Buffer.from(
        `${SHEET_HEAD}<row r="1">${Array.from({ length: scale.wideCells }, (_, i) => `<c r="${columnLetter(i)}1" t="n"><v>1</v></c>`).join('')}</row>${SHEET_TAIL}`,
      ),
    ),
  );
  files['wide.csv'] = join(dir, 'wide.csv');
  writeFileSync(files['wide.csv'], `${'c,'.repeat(scale.csvColumns)}c\n${'1,'.repeat(scale.csvColumns)}1\n`);
  files['unknown-headers.csv'] = join(dir, 'unknown-headers.csv');
  const extra = Array.from({ length: scale.unknownHeaders }, (_, i) => `x${i}`).join(',');
  writeFileSync(files['unknown-headers.csv'], `sku,quantity,${extra}\nSKU-1,5\n`);
  files['huge-cell.csv'] = join(dir, 'huge-cell.csv');
  writeFileSync(files['huge-cell.csv'], `sku,quantity\n${'A'.repeat(scale.cellMiB * 1024 * 1024)},5\n`);
  return files;
}

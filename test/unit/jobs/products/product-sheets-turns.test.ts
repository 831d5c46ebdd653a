import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readProductSheets } from '../../../../src/jobs/products/product-sheets.js';

// The live catalog is read while the sheet's rows are mapped: a batch of rows mapped without a
// turn of the event loop held back the pages that arrived meanwhile (and the next page's request)
// for the whole batch. The reader now lets the read go every 256 rows.
describe('readProductSheets lets the live read go while it maps rows', () => {
  it('awaits letReadGo every 256 rows, and maps the same products with or without it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-sheet-turns-'));
    const file = join(dir, 'products.csv');
    const rows = Array.from({ length: 1000 }, (_, i) => `REF-${i},Product ${i},${(i % 90) + 10}.50`);
    writeFileSync(file, `reference_id,name,price\n${rows.join('\n')}\n`);
    const mapping = { decimals: 2 };
    const at: number[] = [];
    let mapped = 0;
    const withTurns = await readProductSheets({
      file,
      mapping,
      onProgress: (p) => {
        if (p.phase === 'read') mapped = p.done;
      },
      letReadGo: () => {
        at.push(mapped);
        return new Promise<void>((resolve) => setImmediate(resolve));
      },
    });
    // Three turns for 1,000 rows: after rows 256, 512 and 768.
    expect(at).toHaveLength(3);
    const plain = await readProductSheets({ file, mapping });
    expect(withTurns.mapping.products).toEqual(plain.mapping.products);
    expect(withTurns.productRows).toBe(1000);
  });
});

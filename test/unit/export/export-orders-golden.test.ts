/**
 * Issue 41's order export bench in small, as a correctness test (not timed): a fixed generated
 * store's orders, read through the real client (pages validated, read ahead), exported to CSV and
 * XLSX. Every file is compared with digests taken before the export's CPU work was trimmed: the
 * same bytes (XLSX: every member of the zip, the file's own two dates of writing left out).
 * A change meant to change the output (a column, a format), or a change to the generator or the
 * sandbox that changes the orders themselves, takes the digests again: from the export code as it
 * was before the change for the second kind, so that the export's bytes are still what is checked.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../../src/api/merchant-client.js';
import type { FetchLike } from '../../../src/api/transport.js';
import { exportOrders, suffixedPath } from '../../../src/export/export-orders.js';
import { SandboxApp } from '../../../src/sandbox/app.js';
import { generateStore } from '../../../src/sandbox/generator.js';
import { SandboxStore } from '../../../src/sandbox/store.js';

const BASE = 'https://sandbox.test';

let dir: string;
let app: SandboxApp;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-golden-'));
  const store = new SandboxStore({
    // tipsInTax: the store as pinned (generated before the sandbox left tips outside the tax).
    state: generateStore({
      orders: 420,
      products: 40,
      customers: 60,
      seed: 11,
      currency: 'MYR',
      tipsInTax: true,
    }),
  });
  app = new SandboxApp(store);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha = (bytes: Buffer | Uint8Array): string =>
  createHash('sha256').update(bytes).digest('hex').slice(0, 16);

async function exportTo(format: 'csv' | 'xlsx', thread = true): Promise<Record<string, string>> {
  const fetch: FetchLike = async (url, init) => {
    const res = await app.handle({ method: init.method, url, headers: init.headers, body: init.body ?? '' });
    const body = typeof res.body === 'string' ? res.body : Buffer.from(res.body).toString('utf8');
    return {
      status: res.status,
      headers: { get: (n: string) => res.headers[n.toLowerCase()] ?? null },
      text: async () => body,
    };
  };
  const client = new MerchantClient({ baseUrl: BASE, token: app.token, fetch });
  try {
    const me = await client.me();
    const path = join(dir, `orders.${format}`);
    const result = await exportOrders({
      orders: client.orders.list(),
      store: me,
      path,
      format,
      now: new Date('2026-11-20T00:00:00Z'),
      thread,
    });
    expect(result.orders).toBe(420);
    const digests: Record<string, string> = {};
    if (format === 'csv') {
      for (const suffix of ['', '-lines', '-checks', '-summary'])
        digests[`orders${suffix}.csv`] = sha(await readFile(suffixedPath(path, suffix)));
    } else {
      const zip = await JSZip.loadAsync(await readFile(path));
      for (const name of Object.keys(zip.files).sort()) {
        const entry = zip.files[name];
        if (!entry || entry.dir) continue;
        // docProps/core.xml holds when the file was written: those two dates are left out.
        digests[name] =
          name === 'docProps/core.xml'
            ? sha(
                Buffer.from(
                  (await entry.async('string')).replace(/(<dcterms:(?:created|modified)[^>]*>)[^<]*/g, '$1'),
                ),
              )
            : sha(await entry.async('uint8array'));
      }
    }
    return digests;
  } finally {
    await client.close();
  }
}

describe('order export bytes (issue 41)', () => {
  it('writes the CSV files byte for byte as before', async () => {
    expect(await exportTo('csv')).toEqual({
      'orders-checks.csv': '7f5524095d766190',
      'orders-lines.csv': '63c2fe8caa2c1b23',
      'orders-summary.csv': 'be51549a121b86a4',
      'orders.csv': '6e5b505245691284',
    });
  });
  // The workbook written in a worker thread (the default) and on the calling thread: the same bytes.
  it.each([true, false])(
    'writes every member of the XLSX byte for byte as before (thread: %s)',
    async (thread) => {
      expect(await exportTo('xlsx', thread)).toEqual({
        '[Content_Types].xml': '652cb1b6d15bd437',
        '_rels/.rels': '1285b20099c64699',
        'docProps/app.xml': 'ac6b4461eae2a362',
        'docProps/core.xml': '8d79581801b51193',
        'xl/_rels/workbook.xml.rels': '6a5c54bb704bc279',
        'xl/comments1.xml': 'cc92b92a6e2d56a4',
        'xl/comments2.xml': 'd7d54d8d2c15d112',
        'xl/comments3.xml': '85c42f2ec0a9d097',
        'xl/comments4.xml': '00c4832e9d3d0cf2',
        'xl/drawings/vmlDrawing1.vml': '663f44fbf908b2f0',
        'xl/drawings/vmlDrawing2.vml': 'a31c62abea1b46c9',
        'xl/drawings/vmlDrawing3.vml': '257904aadf45cb21',
        'xl/drawings/vmlDrawing4.vml': 'cd659f18f679a7cf',
        'xl/styles.xml': '38732fe35668802c',
        'xl/theme/theme1.xml': 'f857ef82e4c0e273',
        'xl/workbook.xml': '86fb03fb8f366a15',
        'xl/worksheets/_rels/sheet1.xml.rels': 'b17b15ffc717cd40',
        'xl/worksheets/_rels/sheet2.xml.rels': '75308235fd9e3ec2',
        'xl/worksheets/_rels/sheet3.xml.rels': '22e9a5b4ad49306e',
        'xl/worksheets/_rels/sheet4.xml.rels': 'e9363975486064aa',
        'xl/worksheets/sheet1.xml': '53b52b9ea89c0788',
        'xl/worksheets/sheet2.xml': '91382285c796712f',
        'xl/worksheets/sheet3.xml': '5a84d196fb825ff8',
        'xl/worksheets/sheet4.xml': '6058ed5fd667604f',
      });
    },
  );
});

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';
import { selfSignedCertificate } from '../../helpers/self-signed-certificate.js';
import { fileSandbox, startMcp, type FileSandbox, type McpSession } from './mcp-helpers.js';

// plan_import of a URL downloads it with the library's feed download (feeds/remote-source.ts), the
// one `mbulk import URL` uses: the server is given no download of the CLI's. An error answer is a
// tool error, and the server keeps serving. The feed is served over https with a certificate the
// server trusts through NODE_EXTRA_CA_CERTS.
let sb: FileSandbox;
let mcp: McpSession;
let feed: Server;
let base = '';
const sku = SAMPLE_STORE.products
  .flatMap((p) => [p.inventory, ...p.variants.map((v) => v.inventory)])
  .find((i) => i?.sku)?.sku as string;

beforeAll(async () => {
  sb = await fileSandbox();
  const tls = selfSignedCertificate(sb.dir, '127.0.0.1', 'IP:127.0.0.1');
  feed = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    if (req.url === '/stock.csv') {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(`sku,quantity\n${sku},41\n`);
    } else {
      res.writeHead(404);
      res.end('no such feed');
    }
  });
  await new Promise<void>((done) => feed.listen(0, '127.0.0.1', done));
  base = `https://127.0.0.1:${(feed.address() as AddressInfo).port}`;
  mcp = await startMcp(mkdtempSync(join(sb.dir, 'work-')), { ...sb.env, NODE_EXTRA_CA_CERTS: tls.certFile });
});
afterAll(async () => {
  await mcp?.close();
  await new Promise((done) => feed?.close(done));
  await sb?.close();
});

it('plans a sheet downloaded from a URL, and says a failed download as a tool error', async () => {
  const planned = await mcp.call('plan_import', { kind: 'stock', source: { url: `${base}/stock.csv` } });
  expect(planned.isError, planned.text).toBe(false);
  expect(planned.data['runId']).toEqual(expect.any(String));
  expect(planned.data['counts']).toMatchObject({ rows: 1 });

  const missing = await mcp.call('plan_import', { kind: 'stock', source: { url: `${base}/gone.csv` } });
  expect(missing.isError).toBe(true);
  expect(missing.text).toContain('404');
  // Still serving.
  expect((await mcp.client.listTools()).tools.map((t) => t.name)).toContain('plan_import');
  expect(sb.writes()).toEqual([]);
});

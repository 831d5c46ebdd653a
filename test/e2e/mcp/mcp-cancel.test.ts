import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';
import { answerOf, fileSandbox, startMcp, type FileSandbox, type McpSession } from './mcp-helpers.js';

// A slow store with no batch route: a stock plan is one PATCH per item, each ~60 ms.
let sb: FileSandbox;
let mcp: McpSession;

beforeAll(async () => {
  sb = await fileSandbox({ latencyMs: 60, strict: true });
  mcp = await startMcp(mkdtempSync(join(sb.dir, 'work-')), sb.env);
});
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

it('a cancelled apply stops new writes; resume_run finishes it with each write sent once', async () => {
  const items = SAMPLE_STORE.products
    .filter((p) => p.inventory_enabled)
    .flatMap((p) => [p.inventory, ...(p.variants ?? []).map((v) => v.inventory)])
    .filter((i): i is NonNullable<typeof i> => i != null && i.sku !== null)
    .slice(0, 30);
  const planned = await mcp.call('plan_import', {
    kind: 'stock',
    source: { records: items.map((i) => ({ sku: i.sku, quantity: i.quantity + 5 })) },
  });
  expect(planned.data).toMatchObject({ writes: items.length, guards: [] });
  const runId = String(planned.data['runId']);

  // Cancel once a few writes were acknowledged (progress notifications say so).
  const abort = new AbortController();
  let progressed = 0;
  const call = mcp.client.request(
    {
      method: 'tools/call',
      params: { name: 'apply_plan', arguments: { run_id: runId, plan_hash: planned.data['planHash'] } },
    },
    CallToolResultSchema,
    {
      signal: abort.signal,
      onprogress: (p) => {
        progressed++;
        if (p.progress >= 3) abort.abort('the user changed their mind');
      },
    },
  );
  await expect(call).rejects.toThrow();
  expect(progressed).toBeGreaterThan(0);

  // The server lets the writes in flight finish, then the run is interrupted (not applied).
  let status = '';
  for (let i = 0; i < 100 && status !== 'interrupted'; i++) {
    status = String((await mcp.call('run_status', { run_id: runId })).data['status']);
    if (status !== 'interrupted') await new Promise((r) => setTimeout(r, 100));
  }
  expect(status).toBe('interrupted');
  const patched = (): string[] =>
    sb
      .writes()
      .filter((e) => e.method === 'PATCH')
      .map((e) => e.path.replace(/\?.*$/, ''));
  const beforeResume = patched().length;
  expect(beforeResume).toBeGreaterThan(0);
  expect(beforeResume).toBeLessThan(items.length);

  const resumed = answerOf(
    await mcp.client.request(
      { method: 'tools/call', params: { name: 'resume_run', arguments: { run_id: runId } } },
      CallToolResultSchema,
    ),
  );
  expect(resumed.isError, resumed.text).toBe(false);
  expect(resumed.data).toMatchObject({ runId, status: 'completed', ok: true });
  // Each item written once, whole run: no write repeated by the resume.
  const paths = patched();
  expect(paths.length).toBe(items.length);
  expect(new Set(paths).size).toBe(items.length);
  for (const i of items) expect(sb.s.store.getInventoryItem(i.item_id).quantity).toBe(i.quantity + 5);
});

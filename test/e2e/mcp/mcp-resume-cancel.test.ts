import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';
import { fileSandbox, startMcp, type FileSandbox, type McpSession } from './mcp-helpers.js';

// An assistant applies only what it saw, and a cancel never costs it its server: resume_run of a
// run that never started needs the plan's hash; apply_plan cancelled at any moment leaves the
// server answering and the run resumable, each write sent once. A slow store with no batch route
// (one PATCH per item, ~60 ms each), one server for the file; the request log is the witness.
let sb: FileSandbox;
let mcp: McpSession;

const items = SAMPLE_STORE.products
  .filter((p) => p.inventory_enabled)
  .flatMap((p) => [p.inventory, ...(p.variants ?? []).map((v) => v.inventory)])
  .filter((i): i is NonNullable<typeof i> => i != null && i.sku !== null)
  .slice(0, 24);

beforeAll(async () => {
  sb = await fileSandbox({ latencyMs: 60, strict: true });
  mcp = await startMcp(mkdtempSync(join(sb.dir, 'work-')), sb.env);
});
afterAll(async () => {
  await mcp?.close();
  await sb?.close();
});

/** Plans every item at its quantity + `add`. */
async function plan(add: number): Promise<{ runId: string; hash: string }> {
  const planned = await mcp.call('plan_import', {
    kind: 'stock',
    source: { records: items.map((i) => ({ sku: i.sku, quantity: i.quantity + add })) },
  });
  expect(planned.isError, planned.text).toBe(false);
  expect(planned.data).toMatchObject({ writes: items.length, guards: [] });
  return { runId: String(planned.data['runId']), hash: String(planned.data['planHash']) };
}

const patches = (): number => sb.writes().filter((e) => e.method === 'PATCH').length;

it('resume_run of a run planned and never started is refused without its hash: nothing written', async () => {
  const { runId, hash } = await plan(3);
  const before = sb.writes().length;
  const refused = await mcp.call('resume_run', { run_id: runId });
  expect(refused).toMatchObject({ isError: true, data: { refused: 'never-started', runId } });
  expect(String(refused.data['message'])).toContain('apply_plan');
  expect(String(refused.data['message'])).not.toMatch(/\bmbulk [a-z]/);
  // Another plan's hash is refused too; the plan edited after it was shown is refused by its hash.
  const wrong = await mcp.call('resume_run', { run_id: runId, plan_hash: '0'.repeat(64) });
  expect(wrong).toMatchObject({ isError: true, data: { refused: 'plan-hash' } });
  expect(sb.writes().length).toBe(before);
  expect((await mcp.call('run_status', { run_id: runId })).data['status']).toBe('planned');
  // With the hash it was shown, it is applied (the same as apply_plan).
  const applied = await mcp.call('resume_run', { run_id: runId, plan_hash: hash });
  expect(applied.isError, applied.text).toBe(false);
  expect(applied.data).toMatchObject({ status: 'completed', ok: true });
  for (const i of items) expect(sb.s.store.getInventoryItem(i.item_id).quantity).toBe(i.quantity + 3);
});

it.each([0, 50, 100, 150])(
  'apply_plan cancelled after %i ms: the server answers, and resume_run finishes the run, each write once',
  async (ms) => {
    const add = 10 + ms;
    const { runId, hash } = await plan(add);
    const sent = patches();
    const abort = new AbortController();
    const call = mcp.client.request(
      { method: 'tools/call', params: { name: 'apply_plan', arguments: { run_id: runId, plan_hash: hash } } },
      CallToolResultSchema,
      { signal: abort.signal, onprogress: () => {} },
    );
    const cancelled = expect(call).rejects.toThrow();
    if (ms === 0) abort.abort('cancel at once');
    else setTimeout(() => abort.abort(`cancel after ${ms} ms`), ms);
    await cancelled;

    // The server is still there and answers.
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toContain('resume_run');

    // The run stops (interrupted, or still planned when nothing had started); then it is resumable.
    let status = 'applying';
    for (let i = 0; i < 100 && status === 'applying'; i++) {
      status = String((await mcp.call('run_status', { run_id: runId })).data['status']);
      if (status === 'applying') await new Promise((r) => setTimeout(r, 50));
    }
    expect(['planned', 'interrupted', 'applied']).toContain(status);
    if (status === 'interrupted') {
      // The same sheet again is not planned a second time: its unfinished run is named.
      const replanned = await mcp.call('plan_import', {
        kind: 'stock',
        source: { records: items.map((i) => ({ sku: i.sku, quantity: i.quantity + add })) },
      });
      expect(replanned).toMatchObject({ isError: true, data: { refused: 'unfinished-run', run: runId } });
      expect(String(replanned.data['message'])).toContain('resume_run');
    }
    const resumed = await mcp.call('resume_run', { run_id: runId, plan_hash: hash });
    if (status === 'applied') {
      // Every write landed before the cancel took effect: nothing is left to resume.
      expect(resumed.data['refused']).toBe('already-applied');
    } else {
      expect(resumed.isError, resumed.text).toBe(false);
      expect(resumed.data).toMatchObject({ runId, status: 'completed', ok: true });
    }
    // Each item written once over the cancelled apply and the resume.
    expect(patches() - sent).toBe(items.length);
    for (const i of items) expect(sb.s.store.getInventoryItem(i.item_id).quantity).toBe(i.quantity + add);
    expect(mcp.stderr()).not.toMatch(/AbortError|Unhandled/);
  },
);

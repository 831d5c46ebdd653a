import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox } from './src/sandbox/server.js';
import { runCli } from './test/helpers/run-cli.js';
const sb = await startSandbox({ seed: resolve('samples/store.json') });
const dir = mkdtempSync(join(tmpdir(), 'try-'));
const env = { MERCHANT_API_URL: sb.url, MERCHANT_API_TOKEN: sb.token };
for (const f of process.argv.slice(2)) {
  const r = await runCli(['import', 'products', f, '--json'], env, dir);
  const d = r.json<{ counts: Record<string, number>; rows: Record<string, number> }>();
  const t = d.rows;
  console.log(f.split('/').pop(), r.code, JSON.stringify(d.counts), JSON.stringify(t), t.read === t.inPlan + t.leftOut + t.markedSkip + t.invalid);
}
await sb.close();

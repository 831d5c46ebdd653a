/**
 * `mbulk mcp` start-up: from spawning the built binary to the server's answer to `initialize` (the
 * SDK's client connected), and to its answer to `tools/list`. Target (issue 27): under 0.5 s here.
 *
 *   npx tsx bench/mcp-startup.bench.ts [--runs 10]
 *
 * Against a sandbox started in this process (samples/store.json); median and worst of the runs, and
 * the load average. Needs a build (`npm run build`): it runs what users run.
 */
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSandbox } from '../src/sandbox/server.js';
import type { StoreSnapshot } from '../src/schema/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 10;
const seed = JSON.parse(readFileSync(join(root, 'samples', 'store.json'), 'utf8')) as StoreSnapshot;
const sandbox = await startSandbox({ seed });

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const connected: number[] = [];
const listed: number[] = [];
try {
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'bin', 'mbulk.js'), 'mcp'],
      env: {
        PATH: process.env['PATH'] ?? '',
        MERCHANT_API_URL: sandbox.url,
        MERCHANT_API_TOKEN: sandbox.token,
      },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    const atConnect = performance.now() - started;
    await client.listTools();
    const atList = performance.now() - started;
    await client.close();
    // The first round warms the code cache.
    if (i > 0) {
      connected.push(atConnect);
      listed.push(atList);
    }
  }
} finally {
  await sandbox.close();
}
const ms = (x: number): string => `${x.toFixed(0)} ms`;
console.log(
  `mbulk mcp start-up, ${runs} runs (load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')})`,
);
console.log(`  initialize answered: median ${ms(median(connected))} · worst ${ms(Math.max(...connected))}`);
console.log(
  `  tools/list answered: median ${ms(median(listed))} · worst ${ms(Math.max(...listed))} (target < 500 ms)`,
);

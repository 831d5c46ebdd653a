import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openerCommand } from '../../../src/cli/open-in-browser.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { runCli } from '../../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const RECORD_OPEN = join(ROOT, 'test/fixtures/report/record-open.mjs');

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  sandbox = await startSandbox({ seed: join(ROOT, 'samples/store.json') });
  dir = mkdtempSync(join(tmpdir(), 'mbulk-runs-open-'));
  env = {
    MERCHANT_API_URL: sandbox.url,
    MERCHANT_API_TOKEN: sandbox.token,
    OPEN_RECORD: join(dir, 'opened.txt'),
    MBULK_OPEN: `${process.execPath} ${RECORD_OPEN}`,
  };
});
afterEach(async () => {
  await sandbox.close();
});

async function planStock(): Promise<{ runId: string; reportHtml: string }> {
  const planned = await runCli(['import', 'stock', join(ROOT, 'samples/stock.csv'), '--json'], env, dir);
  expect(planned.code, planned.stderr).toBeLessThanOrEqual(1);
  return planned.json<{ runId: string; reportHtml: string }>();
}

describe('mbulk runs show RUN --open', () => {
  it("opens the run's report.html with the opener (MBULK_OPEN here, xdg-open/open/start by default)", async () => {
    const { runId, reportHtml } = await planStock();
    expect(existsSync(reportHtml)).toBe(true);
    const shown = await runCli(['runs', 'show', runId.slice(0, 22), '--open', '--json'], env, dir);
    expect(shown.code, shown.stderr).toBe(0);
    expect(readFileSync(join(dir, 'opened.txt'), 'utf8')).toBe(`${reportHtml}\n`);
    expect(shown.json<{ files: string[] }>().files).toContain(reportHtml);

    // Without --open nothing is opened.
    await runCli(['runs', 'show', runId], env, dir);
    expect(readFileSync(join(dir, 'opened.txt'), 'utf8')).toBe(`${reportHtml}\n`);
  });

  it('says what to do when the opener is missing or fails (exit 2)', async () => {
    const { runId, reportHtml } = await planStock();
    const missing = await runCli(
      ['runs', 'show', runId, '--open'],
      { ...env, MBULK_OPEN: join(dir, 'no-such-opener') },
      dir,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `cannot start ${join(dir, 'no-such-opener')} (ENOENT) to open ${reportHtml}`,
    );
    const failing = await runCli(
      ['runs', 'show', runId, '--open'],
      { ...env, MBULK_OPEN: `${process.execPath} -e process.exit(3)` },
      dir,
    );
    expect(failing.code).toBe(2);
    expect(failing.stderr).toContain(`failed (exit 3) to open ${reportHtml}: open it yourself`);
    const json = await runCli(
      ['runs', 'show', runId, '--open', '--json'],
      { ...env, MBULK_OPEN: 'false' },
      dir,
    );
    expect(json.code).toBe(2);
    expect(json.json()).toMatchObject({ ok: false, error: expect.stringContaining('false failed (exit 1)') });
  });

  it('uses the platform opener by default', () => {
    expect(openerCommand('/r/report.html', {}, 'linux')).toEqual({
      command: 'xdg-open',
      args: ['/r/report.html'],
    });
    expect(openerCommand('/r/report.html', {}, 'darwin')).toEqual({
      command: 'open',
      args: ['/r/report.html'],
    });
    expect(openerCommand('C:\\r\\report.html', {}, 'win32')).toEqual({
      command: 'cmd',
      args: ['/c', 'start', '""', 'C:\\r\\report.html'],
    });
  });
});

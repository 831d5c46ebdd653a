import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// A FIFO given as --map-file or as the sheet: refused at once (exit 2) by the built binary, where a
// synchronous read of a pipe with no writer would block forever, deaf to SIGTERM. Each run is
// killed after 15 s, so a regression fails here instead of hanging the suite.
const root = resolve(import.meta.dirname, '..', '..', '..');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mbulk-fifo-'));
  execFileSync('mkfifo', [join(dir, 'map.json'), join(dir, 'sheet.csv')]);
  writeFileSync(join(dir, 'products.csv'), 'sku,title,price\nFIFO-1,Pipe,1.00\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mbulk(args: string[]): Promise<{ code: number | string; stderr: string }> {
  return new Promise((done) =>
    execFile(
      process.execPath,
      [join(root, 'bin', 'mbulk.js'), ...args],
      {
        cwd: dir,
        env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'data') },
        timeout: 15_000,
        killSignal: 'SIGKILL',
      },
      (error, _stdout, stderr) =>
        done({ code: error === null ? 0 : (error.code ?? error.signal ?? -1), stderr }),
    ),
  );
}

it('a FIFO --map-file exits 2 at once, naming it', async () => {
  const r = await mbulk(['import', 'products', 'products.csv', '--map-file', 'map.json']);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(`--map-file ${join(dir, 'map.json')}: not a regular file`);
});

it('a FIFO sheet exits 2 at once, naming it', async () => {
  // In-process: the sheet reader stats before it opens, so nothing here can block the event loop.
  for (const kind of ['stock', 'products']) {
    const r = await runCli(
      ['import', kind, 'sheet.csv'],
      { HOME: dir, XDG_DATA_HOME: join(dir, 'data') },
      dir,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'sheet.csv')} is not a regular file`);
  }
});

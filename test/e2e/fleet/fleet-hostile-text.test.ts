import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FleetSummary } from '../../../src/fleet/fleet-summary.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';

// `mbulk fleet run` prints a line per store as it ends, a table and a warning per store that did not
// end 0: the messages carry text from the stores' sheets, feed file names and stores. Hostile text
// there (CSI colours, an OSC 8 link, BEL, backspace, carriage return, and line feeds that would print
// a forged "Fleet: … exit 0" line) must reach the terminal as visible escapes, never as the bytes;
// `--json` carries it as a JSON string.
const BIN = resolve('bin/mbulk.js');
const ESC = '\u001b';
const BEL = '\u0007';
/** No "/": it is part of file names. */
const HOSTILE = `${ESC}[31mRED${ESC}]8;;https:evil.example${BEL}click${ESC}]8;;${BEL}\b\b\rFORGED`;
const SHOWN = '\\x1b[31mRED\\x1b]8;;https:evil.example\\x07click\\x1b]8;;\\x07\\x08\\x08\\rFORGED';
/** HOSTILE in a YAML double-quoted string. */
const YAML_HOSTILE = '\\e[31mRED\\e]8;;https:evil.example\\aclick\\e]8;;\\a\\b\\b\\rFORGED';
/** A feed file name that would print a line of its own. */
const FORGED_LINE = 'Fleet: 4 applied; exit 0';
const MISSING_FEED = `gone-${HOSTILE}\n${FORGED_LINE}\n.csv`;

const dir = mkdtempSync(join(tmpdir(), 'mbulk-fleet-hostile-'));
const sandboxes: RunningSandbox[] = [];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  for (let i = 0; i < 3; i++) {
    const seed = structuredClone(SAMPLE_STORE);
    // The store's own name (its store info) hostile too: nothing of it may reach the terminal raw.
    (seed as unknown as { me: { name: string } }).me.name = `Kopi ${HOSTILE}`;
    sandboxes.push(await startSandbox({ seed, token: 'fleet-hostile-token' }));
  }
  const url = (i: number): string => (sandboxes[i] as RunningSandbox).url;
  // An unknown SKU holding the hostile text, in a feed whose file name holds it too.
  writeFileSync(join(dir, `unknown-${HOSTILE}.csv`), `sku,quantity\nTEE-LIN-SND-S,5\n"${HOSTILE}",3\n`);
  writeFileSync(join(dir, 'header.csv'), `"sk${HOSTILE}u",quantity\nTEE-LIN-SND-S,5\n`);
  writeFileSync(
    join(dir, 'stores.yaml'),
    [
      'job: import stock',
      'stores:',
      `  - { name: unknown-sku, base_url: "${url(0)}", token_env: T, feed: "unknown-${YAML_HOSTILE}.csv" }`,
      `  - { name: bad-header, base_url: "${url(1)}", token_env: T, feed: header.csv }`,
      `  - { name: missing, base_url: "${url(2)}", token_env: T, feed: "gone-${YAML_HOSTILE}\\n${FORGED_LINE}\\n.csv" }`,
      '',
    ].join('\n'),
  );
  env = {
    PATH: process.env['PATH'],
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    MBULK_LOCK_DIR: join(dir, 'locks'),
    T: 'fleet-hostile-token',
  };
});

afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** The built binary; its output as the bytes it wrote. */
function mbulk(args: string[]): Promise<{ code: number; stdout: Buffer; stderr: Buffer }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => stdout.push(d));
  child.stderr.on('data', (d: Buffer) => stderr.push(d));
  return new Promise((done) =>
    child.on('close', (code) =>
      done({ code: code ?? -1, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) }),
    ),
  );
}

/** The control bytes the hostile text holds (line feeds are checked by line). */
const CONTROL_BYTES = [0x1b, 0x07, 0x08, 0x0d];

function expectNoControlBytes(bytes: Buffer): void {
  for (const byte of CONTROL_BYTES) expect(bytes.indexOf(byte), `byte 0x${byte.toString(16)}`).toBe(-1);
  // The 8-bit forms of CSI and OSC, as UTF-8 (C2 9B, C2 9D), are not sent either.
  expect(bytes.includes(Buffer.from('\u009b'))).toBe(false);
  expect(bytes.includes(Buffer.from('\u009d'))).toBe(false);
}

it('a fleet summary shows store and sheet text as escapes: no ESC, BEL, backspace or carriage return sent, no forged line', async () => {
  const r = await mbulk(['fleet', 'run', 'stores.yaml']);
  const stdout = r.stdout.toString('utf8');
  const stderr = r.stderr.toString('utf8');
  expect(r.code, stderr).toBe(2);
  expectNoControlBytes(r.stdout);
  expectNoControlBytes(r.stderr);
  // The missing feed's name, in its store's progress line and in its warning, each on one line.
  const missing = `gone-${SHOWN}\\n${FORGED_LINE}\\n.csv`;
  expect(stdout).toMatch(
    new RegExp(
      `^\\[\\d/3\\] missing: config error \\(exit 2\\) · .*${escapeRegExp(missing)} was not found`,
      'm',
    ),
  );
  expect(stderr).toMatch(new RegExp(`^missing: .*${escapeRegExp(missing)} was not found`, 'm'));
  // No line of the output is the forged one: the fleet's own last line is the only "Fleet: …; exit".
  const lines = `${stdout}${stderr}`.split('\n');
  expect(lines.filter((l) => l.startsWith('Fleet: ') && l.includes('; exit '))).toEqual([
    'Fleet: 1 rows failed · 2 config error; exit 2',
  ]);
  expect(stdout).toMatch(/^\[\d\/3\] unknown-sku: rows failed \(exit 1\) · .* 1 invalid row: /m);
});

it('--apply --json carries the text as JSON strings; the lines people read stay clean; a missing feed is exit 2', async () => {
  const r = await mbulk(['fleet', 'run', 'stores.yaml', '--apply', '--yes', '--json']);
  expectNoControlBytes(r.stdout);
  expectNoControlBytes(r.stderr);
  const summary = JSON.parse(r.stdout.toString('utf8')) as FleetSummary;
  const missing = summary.stores.find((s) => s.name === 'missing');
  // With --apply too, a missing feed is a clear "not found" (exit 2), not a raw ENOENT (exit 1).
  expect(missing).toMatchObject({
    outcome: 'config error',
    exitCode: 2,
    message: `${join(dir, MISSING_FEED)} was not found (or is not a file). Check the path.`,
  });
  const unknown = summary.stores.find((s) => s.name === 'unknown-sku');
  const failed = unknown?.result?.['failedRows'] as { sheet: string; message: string }[];
  expect(failed.map((f) => [f.sheet, f.message])).toEqual([
    [`unknown-${HOSTILE}.csv`, `no product or variant in the store has SKU "${HOSTILE}"`],
  ]);
  expect(r.stderr.toString('utf8')).toContain(`gone-${SHOWN}\\n${FORGED_LINE}\\n.csv`);
});

it('the webhook text (what a chat shows) has the same escapes: one line per store, no control character, no forged line', async () => {
  const posted: string[] = [];
  const hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posted.push(Buffer.concat(chunks).toString('utf8'));
      res.end('ok');
    });
  });
  await new Promise<void>((done) => hook.listen(0, '127.0.0.1', done));
  try {
    const { port } = hook.address() as AddressInfo;
    const r = await mbulk(['fleet', 'run', 'stores.yaml', '--notify-url', `http://127.0.0.1:${port}/hook`]);
    expect(r.code, r.stderr.toString('utf8')).toBe(2);
    expect(posted).toHaveLength(1);
    const body = JSON.parse(posted[0] ?? '{}') as {
      text: string;
      stores: { name: string; message?: string }[];
    };
    // A head line and one line per store, in the file's order: the missing feed's line feeds are
    // shown as \n, not lines of their own (a forged "Fleet: … exit 0" line in a chat).
    const lines = body.text.split('\n');
    expect(lines.map((l) => /^(?:mbulk fleet run|• [a-z-]+:)/.exec(l)?.[0])).toEqual([
      'mbulk fleet run',
      '• unknown-sku:',
      '• bad-header:',
      '• missing:',
    ]);
    expect(lines.filter((l) => l.startsWith(FORGED_LINE))).toEqual([]);
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    expect(body.text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(lines[3]).toContain(`gone-${SHOWN}\\n${FORGED_LINE}\\n.csv was not found`);
    // The JSON fields keep the text as it is (a JSON string is not a terminal).
    expect(body.stores.find((s) => s.name === 'missing')?.message).toContain(MISSING_FEED);
  } finally {
    await new Promise((done) => hook.close(done));
  }
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

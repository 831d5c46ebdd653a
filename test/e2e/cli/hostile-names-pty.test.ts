import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/server.js';

// The built binary in a pseudo-terminal (util-linux `script`) prints a plan whose product names, a
// cell and the store's name hold escape sequences: the bytes it writes must carry them as visible
// escapes (`\x1b`), never raw, so a cell cannot clear the screen, draw a fake result or make a link.
const BIN = resolve('bin/mbulk.js');
const ESC = '\u001b';
const BEL = '\u0007';

/** Each hostile name, and how the terminal must show it. */
const NAMES = {
  clears: {
    raw: `${ESC}[2J${ESC}[H${ESC}[32m✔ Applied: 0 failed${ESC}[0m`,
    shown: '\\x1b[2J\\x1b[H\\x1b[32m✔ Applied: 0 failed\\x1b[0m',
  },
  link: {
    raw: `${ESC}]8;;https://evil.example/${BEL}Click me${ESC}]8;;${BEL}`,
    shown: '\\x1b]8;;https://evil.example/\\x07Click me\\x1b]8;;\\x07',
  },
  redraws: {
    raw: `Bell${BEL} Backspace\b\b\b Carriage\rFORGED`,
    shown: 'Bell\\x07 Backspace\\x08\\x08\\x08 Carriage\\rFORGED',
  },
  csi8bit: { raw: 'Eight\u009b2Jbit', shown: 'Eight\\x9b2Jbit' },
} as const;
/** Long enough that the plan line cuts it (60 characters), right inside its OSC 8 sequence. */
const LONG_NAME = `Gula Melaka Latte with a name long enough to be cut: ${ESC}]8;;https://evil.example/x${BEL}link`;
const STORE_NAME = `Kopi${ESC}[2K${ESC}[1A & Kain`;

let sandbox: RunningSandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mbulk-hostile-'));
  const seed = JSON.parse(readFileSync(resolve('samples/store.json'), 'utf8')) as { me: { name: string } };
  seed.me.name = STORE_NAME;
  writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
  sandbox = await startSandbox({ seed: join(dir, 'seed.json') });
  env = {
    PATH: process.env['PATH'],
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    TERM: 'xterm',
    MERCHANT_API_URL: sandbox.url,
    MERCHANT_API_TOKEN: sandbox.token,
  };
  const rows = [
    ['reference_id', 'name', 'price'],
    ['H-1', NAMES.clears.raw, '1.00'],
    ['H-2', NAMES.link.raw, '2.00'],
    ['H-3', NAMES.redraws.raw, '3.00'],
    ['H-4', NAMES.csi8bit.raw, '4.00'],
    ['ERP-0000001', LONG_NAME, '11.90'],
    ['H-6', 'Bad price', `${ESC}[31m12`],
  ];
  const cell = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  writeFileSync(join(dir, 'hostile.csv'), `${rows.map((r) => r.map(cell).join(',')).join('\n')}\n`);
});
afterAll(async () => {
  await sandbox.close();
});

/**
 * `mbulk ARGS` in a pseudo-terminal: every byte the terminal received. `answer` is typed once a
 * confirmation prompt is on the screen.
 */
function inTerminal(args: string, answer?: string): Promise<{ code: number; bytes: string }> {
  const child = spawn('script', ['-qfec', `stty cols 120 rows 40; node ${BIN} ${args}`, '/dev/null'], {
    cwd: dir,
    env,
  });
  const chunks: Buffer[] = [];
  let answered = answer === undefined;
  child.stdout.on('data', (d: Buffer) => {
    chunks.push(d);
    if (!answered && Buffer.concat(chunks).toString('utf8').includes('[y/N]')) {
      answered = true;
      child.stdin.write(answer ?? '');
    }
  });
  child.stderr.on('data', (d: Buffer) => chunks.push(d));
  return new Promise((done) =>
    child.on('close', (code) => done({ code: code ?? -1, bytes: Buffer.concat(chunks).toString('latin1') })),
  );
}

/**
 * The escape sequences mbulk itself sends to a terminal: its plan colours and listr2's spinner
 * (SGR colours, cursor hide/show, erase line, cursor up, column 1). Nothing else may start with ESC.
 */
// eslint-disable-next-line no-control-regex -- escape sequences are what the test is about
const OWN_SEQUENCES = /\x1b\[(?:\d+(?:;\d+)*)?m|\x1b\[\?25[lh]|\x1b\[2K|\x1b\[1A|\x1b\[G/g;

function expectNothingRaw(bytes: string): void {
  const rest = bytes.replace(OWN_SEQUENCES, '');
  expect(rest.includes(ESC), JSON.stringify(rest)).toBe(false);
  expect(rest.includes(BEL)).toBe(false);
  expect(rest.includes('\b')).toBe(false);
  // The terminal's own line ends are CR LF (the pty's onlcr); no CR of the sheet's is sent.
  expect(/\r(?!\n)/.test(rest), JSON.stringify(rest)).toBe(false);
  // Neither the C1 CSI (U+009B, UTF-8 C2 9B) nor any of the sheet's sequences, even among our own colours.
  expect(bytes.includes('\u00c2\u009b')).toBe(false);
  for (const raw of [`${ESC}[2J`, `${ESC}[H`, `${ESC}]8;;`, `${ESC}[31m12`, `${ESC}[1A & Kain`])
    expect(bytes.includes(raw), raw).toBe(false);
}

it('a dry run shows hostile names, a cut name, a bad cell and the store name as escapes, sending none of them raw', async () => {
  const run = await inTerminal('import products hostile.csv');
  const text = Buffer.from(run.bytes, 'latin1').toString('utf8');
  expect(run.code, text).toBe(1); // one invalid row
  expectNothingRaw(run.bytes);
  for (const { shown } of Object.values(NAMES)) expect(text).toContain(shown);
  // The cut name: made visible, then cut (never half of a raw OSC 8 sequence).
  expect(text).toContain(
    'name: Gula Melaka Latte → Gula Melaka Latte with a name long enough to be cut: \\x1b]8;…',
  );
  expect(text).toContain('price: "\\x1b[31m12" is not an amount');
  expect(text).toContain('store Kopi\\x1b[2K\\x1b[1A & Kain (store_000001)');
  // The plan is still coloured: mbulk's own sequences are untouched.
  expect(run.bytes).toContain(`${ESC}[32m  create H-1 (row 2): `);

  // `runs show` and `runs show --report` (report.md in full) do the same.
  const runId = /To write this plan: mbulk apply (\S+)/.exec(text)?.[1] as string;
  expect(runId, text).toBeDefined();
  const show = await inTerminal(`runs show ${runId} --report`);
  const shown = Buffer.from(show.bytes, 'latin1').toString('utf8');
  expect(show.code, shown).toBe(0);
  expectNothingRaw(show.bytes);
  expect(shown).toContain(NAMES.clears.shown);
  expect(shown).toContain(NAMES.redraws.shown);
}, 60_000);

it('the confirmation prompt shows the store name as escapes, sending none of it raw', async () => {
  // The hostile sheet without its invalid row (an import with invalid rows never gets to ask).
  const lines = readFileSync(join(dir, 'hostile.csv'), 'utf8').split('\n');
  writeFileSync(join(dir, 'hostile-valid.csv'), lines.filter((l) => !l.startsWith('H-6,')).join('\n'));
  const run = await inTerminal('import products hostile-valid.csv --apply', 'n\r');
  const text = Buffer.from(run.bytes, 'latin1').toString('utf8');
  expect(run.code, text).toBe(3); // declined: nothing written
  expect(text).toMatch(/to Kopi\\x1b\[2K\\x1b\[1A & Kain at \S+\? \[y\/N\]/);
  // Besides mbulk's own sequences, readline's for its prompt (column 1 or N, erase below); the
  // terminal echoes the typed answer and its Enter (a CR): neither is the sheet's.
  // eslint-disable-next-line no-control-regex -- escape sequences are what the test is about
  expectNothingRaw(run.bytes.replace(/\x1b\[\d*G|\x1b\[0J/g, '').replace('[y/N] n\r', '[y/N] n'));
  expect(sandbox.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
}, 60_000);

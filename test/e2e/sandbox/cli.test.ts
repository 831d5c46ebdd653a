import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { startSandbox } from '../../../src/sandbox/server.js';

const RUNNER = fileURLToPath(new URL('./fixtures/mbulk.ts', import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mbulk-cli-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sink(): { stream: NodeJS.WritableStream; text: () => string } {
  let text = '';
  const stream = {
    write(chunk: string | Uint8Array) {
      text += String(chunk);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  return { stream, text: () => text };
}

interface ServeDoc {
  ok: boolean;
  url: string;
  token: string;
  state: string;
  store: unknown;
  counts: Record<string, number>;
}

/**
 * `mbulk sandbox … --json` in a child process: its one document, as soon as it listens, all it
 * printed on stdout, and a stop (SIGTERM) that resolves to the exit code.
 */
async function serveJson(
  args: string[],
): Promise<{ doc: ServeDoc; stdout: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', RUNNER, 'sandbox', '--port', '0', ...args, '--json'],
    {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const doc = await new Promise<ServeDoc>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      try {
        resolve(JSON.parse(out) as ServeDoc);
      } catch {
        // not complete yet
      }
    });
    child.once('exit', () => reject(new Error(`exited early: ${out}`)));
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
  return { doc, stdout: () => out, stop };
}

describe('mbulk sandbox', () => {
  it('prints URL and token, serves, and on SIGINT saves state and exits 0', async () => {
    const data = join(dir, 'state.json');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        RUNNER,
        'sandbox',
        '--port',
        '0',
        '--data',
        data,
        '--token',
        'cli-tok',
        '--generate',
        'products=3,customers=2,orders=2',
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m?.[1] !== undefined && out.includes('Ctrl+C')) resolve(m[1]);
      });
      child.once('exit', () => reject(new Error(`exited early: ${out} ${err}`)));
    });
    expect(out).toContain('MERCHANT_API_TOKEN=cli-tok');
    const r = await fetch(`${url}/api/v2/customers`, {
      method: 'POST',
      headers: { authorization: 'Bearer cli-tok', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Via CLI', phone: '1' }),
    });
    expect(r.status).toBe(200);
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      child.kill('SIGINT');
    });
    expect(code).toBe(0);
    const state = JSON.parse(await readFile(data, 'utf8'));
    expect(state.products).toHaveLength(3);
    expect(state.customers.map((c: { name: string }) => c.name)).toContain('Via CLI');
  }, 30_000);

  it('--json prints one document with URL and token as soon as it listens, and nothing else on stdout', async () => {
    const { doc, stdout, stop } = await serveJson(['--data', join(dir, 's.json')]);
    expect(doc.ok).toBe(true);
    const me = await fetch(`${doc.url}/api/v2/me`, { headers: { authorization: `Bearer ${doc.token}` } });
    expect(me.status).toBe(200);
    expect(await stop()).toBe(0);
    expect(JSON.parse(stdout())).toEqual(doc);
  }, 30_000);

  it('--sandbox-data F --empty --currency EUR --country DE: an empty store of that currency and country', async () => {
    const data = join(dir, 'rehearsal.json');
    const { doc, stop } = await serveJson([
      '--sandbox-data',
      data,
      '--empty',
      '--currency',
      'eur',
      '--country',
      'DE',
    ]);
    expect(doc.state).toBe(data);
    expect(doc.store).toMatchObject({ currency: 'EUR', country: 'DE' });
    expect(doc.counts).toMatchObject({ products: 0, customers: 0, orders: 0, templates: 0 });
    const me = (await (
      await fetch(`${doc.url}/api/v2/me`, { headers: { authorization: `Bearer ${doc.token}` } })
    ).json()) as { currency: string; country: string };
    expect(me).toMatchObject({ currency: 'EUR', country: 'DE' });
    expect(await stop()).toBe(0);
    expect(JSON.parse(await readFile(data, 'utf8')).me).toMatchObject({ currency: 'EUR', country: 'DE' });

    // The state exists now: --empty with another currency is refused, naming both (no --reset).
    const stderr = sink();
    const again = await main(['sandbox', '--data', data, '--empty', '--currency', 'USD'], {
      stdout: sink().stream,
      stderr: stderr.stream,
      cwd: dir,
    });
    expect(again).toBe(2);
    expect(stderr.text()).toContain('already exists with a EUR store in DE, not the empty USD store in US');
    expect(stderr.text()).toContain('--reset');
  }, 30_000);

  it('exits 2 on bad options', async () => {
    for (const args of [
      ['sandbox', '--generate', 'products=lots'],
      ['sandbox', '--fail-rate', '2'],
      ['sandbox', '--port', '70000'],
      ['sandbox', '--rate-limit', '0'],
      ['sandbox', '--empty', '--currency', 'XYZ'],
      ['sandbox', '--empty', '--country', 'ZZ'],
      ['sandbox', '--currency', 'USD'],
      ['sandbox', '--empty', '--generate', 'products=1'],
      ['sandbox', '--sandbox-data', join(dir, 'y.json')],
    ]) {
      const stderr = sink();
      const code = await main([...args, '--data', join(dir, 'x.json')], {
        stdout: sink().stream,
        stderr: stderr.stream,
        cwd: dir,
      });
      expect(code, args.join(' ')).toBe(2);
      expect(stderr.text()).toMatch(/--/);
    }
  });

  it('reviews a template on a running sandbox', async () => {
    const sb = await startSandbox();
    try {
      await fetch(`${sb.url}/api/v2/message_templates`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'cli_tpl', body: 'x', category: 'MARKETING' }),
      });
      const stdout = sink();
      const code = await main(
        ['sandbox', 'review', 'cli_tpl', '--status', 'APPROVED', '--category', 'UTILITY', '--url', sb.url],
        {
          stdout: stdout.stream,
          stderr: sink().stream,
        },
      );
      expect(code).toBe(0);
      expect(sb.store.getTemplate('cli_tpl')).toMatchObject({ status: 'APPROVED', category: 'UTILITY' });
    } finally {
      await sb.close();
    }
  });
});

describe('mbulk sandbox review', () => {
  it('reviews a template on the embedded sandbox when no URL is configured', async () => {
    const { runCli } = await import('../../helpers/run-cli.js');
    const before = await runCli(['templates', 'status', '--json'], {}, dir);
    const pending = before
      .json<{ templates: { name: string; status: string }[] }>()
      .templates.find((t) => t.status === 'PENDING');
    expect(pending).toBeDefined();
    const reviewed = await runCli(['sandbox', 'review', pending?.name as string], {}, dir);
    expect(reviewed.code, reviewed.stderr).toBe(0);
    const after = await runCli(['templates', 'status', '--json'], {}, dir);
    expect(
      after
        .json<{ templates: { name: string; status: string }[] }>()
        .templates.find((t) => t.name === pending?.name)?.status,
    ).toBe('APPROVED');
  });
});

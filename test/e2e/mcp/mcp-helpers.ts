import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../src/sandbox/server.js';
import { SAMPLE_STORE } from '../../helpers/sample-sandboxes.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const BIN = resolve(import.meta.dirname, '../../../bin/mbulk.js');

/** A connected SDK client of the built `mbulk mcp`, spawned over stdio, and what it wrote on stderr. */
export interface McpSession {
  client: Client;
  stderr: () => string;
  /** Calls a tool; returns its structured result and whether it is an error. */
  call: (name: string, args?: Record<string, unknown>) => Promise<ToolAnswer>;
  close: () => Promise<void>;
}

export interface ToolAnswer {
  isError: boolean;
  data: Record<string, unknown>;
  text: string;
}

export function answerOf(result: unknown): ToolAnswer {
  const r = result as CallToolResult;
  const first = r.content[0];
  const text = first?.type === 'text' ? first.text : '';
  // Results carry structured content; errors carry the same fields as JSON text.
  const data = r.structuredContent ?? (JSON.parse(text) as Record<string, unknown>);
  return { isError: r.isError === true, data, text };
}

/** Spawns `mbulk mcp FLAGS` in `cwd` against the sandbox of `env`, and connects the SDK's client to it. */
export async function startMcp(
  cwd: string,
  env: Record<string, string>,
  flags: string[] = [],
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...flags],
    cwd,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? cwd,
      MBULK_LOCK_DIR: join(cwd, 'locks'),
      ...env,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'mbulk-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    // callTool: the SDK's client also checks structured content against the listed output schema.
    call: async (name, args = {}) => answerOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

/** One sandbox (seeded with the sample store) and a scratch directory for a whole test file. */
export interface FileSandbox {
  s: RunningSandbox;
  dir: string;
  env: { MERCHANT_API_URL: string; MERCHANT_API_TOKEN: string };
  /** Requests of the request log that write (anything but GET) to the API. */
  writes: () => ReturnType<RunningSandbox['requestLog']>;
  close: () => Promise<void>;
}

export async function fileSandbox(options: Omit<SandboxOptions, 'seed'> = {}): Promise<FileSandbox> {
  const s = await startSandbox({ ...options, seed: structuredClone(SAMPLE_STORE) });
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-mcp-'));
  return {
    s,
    dir,
    env: { MERCHANT_API_URL: s.url, MERCHANT_API_TOKEN: s.token },
    writes: () => s.requestLog().filter((e) => e.method !== 'GET' && e.path.startsWith('/api/')),
    close: async () => {
      await s.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

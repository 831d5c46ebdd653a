import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { categoryOf } from '../errors/exit-code.js';

/**
 * A tool's answer: the structured result, and the same as JSON text for clients that read only
 * text. Sheet cells and API text travel only inside these JSON values, never as prose of ours.
 */
export function toolResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/**
 * A refusal or failure as a tool error: what happened, and (for a guard) the flag that lifts it, as
 * JSON text. No `structuredContent`: a client checks it against the tool's output schema, which
 * describes results, even on an error.
 */
export function toolError(
  data: { error: string; message: string } & Record<string, unknown>,
): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(data) }] };
}

/**
 * A thrown error (a bad sheet, an unknown run, the API unreachable) as a tool error: its category
 * (usage, refused, unreachable, local…), its message, and the API's code and request id when it has them.
 */
export function thrownError(error: unknown): CallToolResult {
  const e = (error instanceof Error ? error : new Error(String(error))) as Error & {
    code?: unknown;
    requestId?: unknown;
  };
  return toolError({
    error: categoryOf(error) ?? 'failed',
    message: e.message,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.requestId === 'string' ? { requestId: e.requestId } : {}),
  });
}

/** Runs a tool's work; anything thrown comes back as a tool error (never a protocol error). */
export async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return thrownError(error);
  }
}

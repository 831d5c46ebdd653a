import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { categoryOf } from '../errors/exit-code.js';
import { inToolTerms } from './tool-terms.js';

/**
 * A tool's answer: the structured result, and the same as JSON text for clients that read only
 * text. Sheet cells and API text travel only inside these JSON values, never as prose of ours.
 */
export function toolResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/**
 * A refusal or failure as a tool error: what happened, and (for a guard) the argument that lifts
 * it, as JSON text; its message in the tools' terms (inToolTerms: no CLI command or flag an
 * assistant cannot use). No `structuredContent`: a client checks it against the tool's output
 * schema, which describes results, even on an error.
 */
export function toolError(
  data: { error: string; message: string } & Record<string, unknown>,
): CallToolResult {
  const said = { ...data, message: inToolTerms(data.message) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(said) }] };
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

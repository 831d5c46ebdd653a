import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { JobProgress } from '../jobs/job-events.js';

/** What the SDK hands a tool besides its arguments: the request's signal, progress token… */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Sends the job's progress as MCP progress notifications when the client asked for them. */
export function progressSender(extra: Extra): ((p: JobProgress) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = 0;
  return (p) => {
    const now = Date.now();
    // At most ten a second, and every final one.
    if (p.total === undefined || p.done < p.total) {
      if (now - last < 100) return;
    }
    last = now;
    // A request the client cancelled has no one to tell.
    if (extra.signal.aborted) return;
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: p.done,
          ...(p.total !== undefined ? { total: p.total } : {}),
          message: `${p.phase}${p.failed ? ` (${p.failed} failed)` : ''}`,
        },
      })
      .catch(() => {});
  };
}

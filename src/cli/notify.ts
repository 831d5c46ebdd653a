import { describeError } from './describe-error.js';
import type { Output } from './output.js';
import type { NotifyArgs } from './notify-options.js';
import { isLoopbackHost } from '../api/refuse-plain-http.js';
import { visibleText } from '../sheets/visible-text.js';

/**
 * `--notify-url URL`: when a run ends (success, failure, refusal, error) its JSON summary is POSTed
 * there, with a `text` line that chat webhooks (Slack, Mattermost, Teams, Google Chat…) display.
 * A notification that fails is logged (naming the webhook's scheme and host only, never its path
 * or query, which may be its secret) and never changes the exit code. Redirects are not followed.
 */
export interface NotifyOptions {
  url: string;
  /** `always` (default) or `failure`: only when the exit code is not 0. */
  on: string;
  /** `import stock`, … */
  command: string;
  /** Cap on the wait, ms (default 10 s): a slow webhook must not hold a nightly job. */
  timeoutMs?: number;
}

/**
 * The one-line text chat webhooks show: "mbulk import stock: failed (exit 1) · run … · …". A
 * refusal or an error carries text from sheets, file names and stores: made visible (`visibleText`:
 * a line feed shown as `\n`, ESC as `\x1b`), so the text stays one line and nothing is sent raw.
 */
export function notificationText(
  command: string,
  exitCode: number,
  summary: Record<string, unknown>,
): string {
  const outcome =
    exitCode === 0
      ? summary['unchanged'] === true
        ? 'unchanged, skipped'
        : 'ok'
      : exitCode === 3
        ? 'refused'
        : exitCode === 130
          ? 'interrupted'
          : 'failed';
  const parts = [`mbulk ${command}: ${outcome} (exit ${exitCode})`];
  if (typeof summary['runId'] === 'string') parts.push(`run ${summary['runId']}`);
  for (const key of ['updated', 'created', 'restored', 'failed', 'notRun', 'writeRequests']) {
    if (typeof summary['applied'] === 'boolean' && !summary['applied']) break;
    const v = summary[key];
    if (typeof v === 'number') parts.push(`${key} ${v}`);
  }
  const refused = summary['refused'];
  if (typeof refused === 'string') parts.push(`refused: ${refused}`);
  const error = summary['error'] as { message?: unknown } | undefined;
  if (typeof error?.message === 'string') parts.push(error.message);
  return visibleText(parts.join(' · '));
}

/** Posts the summary if asked to; logs (never throws) when the notification fails. */
export async function sendNotification(
  out: Output,
  options: NotifyOptions,
  exitCode: number,
  summary: Record<string, unknown>,
): Promise<void> {
  if (options.on === 'failure' && exitCode === 0) return;
  let shown = 'the notification URL';
  try {
    const url = new URL(options.url);
    // Scheme and host only: for Slack, Teams or Mattermost the path is the secret, and this line
    // goes wherever the output goes (the mail of a cron job).
    shown = `${url.protocol}//${url.host}`;
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      throw new Error('plain http:// is only allowed to loopback; use https://');
    }
    const body = {
      text: notificationText(options.command, exitCode, summary),
      command: `mbulk ${options.command}`,
      exitCode,
      ...summary,
    };
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      // A redirect is not followed: the summary goes to the URL the user gave, nowhere else.
      redirect: 'manual',
    });
    await response.arrayBuffer();
    if (response.status >= 300 && response.status < 400)
      throw new Error(
        `the server answered ${response.status} (a redirect, not followed: give the final URL)`,
      );
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
  } catch (error) {
    out.warn(`mbulk: warning: notification to ${shown} failed: ${describeError(error).message}`);
  }
}

/**
 * Runs a command that ends a run and, with `--notify-url`, posts how it ended: its JSON summary
 * (`out.result`) with its exit code, or the error that ended it (which is then rethrown, to be
 * printed and exited with as usual). The notification never changes the exit code.
 */
export async function withNotification(
  args: NotifyArgs,
  out: Output,
  command: string,
  run: () => Promise<number>,
): Promise<number> {
  const url = args['notify-url'];
  if (url === undefined) return run();
  const notify: NotifyOptions = { url, on: args['notify-on'] ?? 'always', command };
  let code: number;
  try {
    code = await run();
  } catch (error) {
    const described = describeError(error);
    await sendNotification(out, notify, described.exitCode, { ok: false, error: described });
    throw error;
  }
  const summary = out.lastResult;
  await sendNotification(
    out,
    notify,
    code,
    typeof summary === 'object' && summary !== null ? { ...summary } : {},
  );
  return code;
}

import { Listr } from 'listr2';
import type { JobProgress } from '../jobs/job-events.js';
import { visibleText } from '../sheets/visible-text.js';
import type { Output } from './output.js';

/** "apply 120/400 (3 failed) · 38.2/s · ETA 7s" */
export function formatProgress(p: JobProgress): string {
  const parts = [`${p.phase} ${p.done}${p.total !== undefined ? `/${p.total}` : ''}`];
  if (p.failed) parts[0] += ` (${p.failed} failed)`;
  if (p.rate !== undefined && p.rate > 0) parts.push(`${p.rate.toFixed(1)}/s`);
  if (p.etaSeconds !== undefined && Number.isFinite(p.etaSeconds) && p.etaSeconds > 0) {
    parts.push(`ETA ${Math.ceil(p.etaSeconds)}s`);
  }
  if (p.message) parts.push(p.message);
  return parts.join(' · ');
}

/**
 * Runs long work with progress: a listr2 task line in a terminal; otherwise (CI, cron, --json) a
 * plain line on stderr at most every `intervalMs`, so logs stay readable.
 *
 * Interrupted (`out.signal` aborted by the first Ctrl-C): the task line says "stopping…" at once
 * (main.ts's notice goes into it, replacing the frame), and ends with ⚠ "TITLE: interrupted",
 * never ✔ nor ✖, whether the work then returns (an apply that let its in-flight writes finish)
 * or throws (a read or a check cut short).
 *
 * The title and every progress line are made visible (`visibleText`): no control character in a
 * file or store name reaches the terminal through listr2.
 */
export async function withProgress<T>(
  out: Output,
  shownTitle: string,
  work: (report: (p: JobProgress) => void) => Promise<T>,
  intervalMs = 5000,
): Promise<T> {
  // listr2 writes titles and output as they are: a file or store name in them is made visible here.
  const title = visibleText(shownTitle);
  const track = (p: JobProgress): void => {
    out.progress.inFlight = p.inFlight;
  };
  if (out.isTty) {
    let result: T | undefined;
    let failure: { error: unknown } | undefined;
    const list = new Listr(
      [
        {
          title,
          task: async (_ctx, task) => {
            let last = 0;
            out.progress.notice = (text) => {
              task.title = `${title}: ${text}`;
            };
            try {
              result = await work((p) => {
                track(p);
                const now = Date.now();
                if (now - last < 100 && p.total !== p.done) return;
                last = now;
                if (!out.signal?.aborted) task.output = visibleText(formatProgress(p));
              });
            } catch (error) {
              if (!out.signal?.aborted) throw error;
              failure = { error };
            }
            if (out.signal?.aborted) {
              task.output = '';
              task.title = `${title}: interrupted`;
              task.skip();
            }
          },
          rendererOptions: { outputBar: 1, persistentOutput: false },
        },
      ],
      // listr2's own SIGINT handler exits 127 at once; ours (main.ts) lets in-flight writes finish.
      // The error is printed once, by main.ts, not also under the task. A skipped task (interrupted)
      // shows ⚠ with its title.
      {
        exitOnError: true,
        registerSignalListeners: false,
        rendererOptions: { showErrorMessage: false, collapseSkips: false, showSkipMessage: false },
      },
    );
    try {
      await list.run();
    } finally {
      out.progress = {};
    }
    if (failure !== undefined) throw failure.error;
    return result as T;
  }
  let last = Date.now();
  try {
    return await work((p) => {
      track(p);
      const now = Date.now();
      if (now - last < intervalMs) return;
      last = now;
      out.warn(`${title}: ${formatProgress(p)}`);
    });
  } finally {
    out.progress = {};
  }
}

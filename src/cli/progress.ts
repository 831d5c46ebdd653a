import { Listr } from 'listr2';
import type { JobProgress } from '../jobs/job-events.js';
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
 */
export async function withProgress<T>(
  out: Output,
  title: string,
  work: (report: (p: JobProgress) => void) => Promise<T>,
  intervalMs = 5000,
): Promise<T> {
  if (out.isTty) {
    let result: T | undefined;
    const list = new Listr(
      [
        {
          title,
          task: async (_ctx, task) => {
            let last = 0;
            result = await work((p) => {
              const now = Date.now();
              if (now - last < 100 && p.total !== p.done) return;
              last = now;
              task.output = formatProgress(p);
            });
          },
          rendererOptions: { outputBar: 1, persistentOutput: false },
        },
      ],
      // listr2's own SIGINT handler exits 127 at once; ours (main.ts) lets in-flight writes finish.
      // The error is printed once, by main.ts, not also under the task.
      { exitOnError: true, registerSignalListeners: false, rendererOptions: { showErrorMessage: false } },
    );
    await list.run();
    return result as T;
  }
  let last = Date.now();
  return work((p) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    out.warn(`${title}: ${formatProgress(p)}`);
  });
}

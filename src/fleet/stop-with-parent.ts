/**
 * The environment variable a launcher (`mbulk fleet run`) sets in each child it starts: its own
 * process id. A child that finds it watches that process and stops as on SIGTERM once it is gone,
 * so a launcher killed with SIGKILL (which it cannot pass on) leaves no store process running.
 */
export const STOP_WITH_PARENT_ENV = 'MBULK_STOP_WITH_PARENT';

/** How often a child looks for its parent: a parent's death is noticed within this time. */
export const PARENT_CHECK_MS = 250;

/**
 * Calls `onGone` once when the process named by `env[STOP_WITH_PARENT_ENV]` is no longer this
 * process's parent: it died, and this process was handed to init or a subreaper (its parent pid
 * changed). Also when it was gone before this process could look (the launcher killed while this one
 * started). Does nothing without the variable. The check runs every PARENT_CHECK_MS on a timer that
 * does not keep the process alive; returns the function that stops watching.
 */
export function stopWithParent(env: NodeJS.ProcessEnv, onGone: () => void): () => void {
  const expected = Number(env[STOP_WITH_PARENT_ENV]);
  if (!Number.isSafeInteger(expected) || expected <= 1) return () => {};
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    if (process.ppid === expected) return;
    stop();
    onGone();
  };
  const stop = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  timer = setInterval(check, PARENT_CHECK_MS);
  timer.unref();
  // A parent already gone is noticed now (after the caller's own set-up, on the next turn).
  setImmediate(() => {
    if (timer !== undefined) check();
  }).unref();
  return stop;
}

/**
 * A signal for one request that aborts when `parent` does, linked only while the request runs.
 *
 * A run shares one AbortSignal (Ctrl-C, SIGTERM) across every request it makes. undici's fetch
 * adds an 'abort' listener to the signal of each Request and removes it only when that Request is
 * garbage-collected (it raises the signal's limit to 1500 for this): a resume or rollback making
 * 1,501 requests in a row printed "MaxListenersExceededWarning: … 1501 abort listeners added to
 * [AbortSignal]". Giving fetch a per-request signal keeps the shared one at one listener per
 * request in flight; `release()` (call it in `finally`) removes it.
 */
export function linkedSignal(parent: AbortSignal | undefined): {
  signal: AbortSignal | undefined;
  release: () => void;
} {
  if (parent === undefined) return { signal: undefined, release: () => {} };
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, release: () => parent.removeEventListener('abort', onAbort) };
}

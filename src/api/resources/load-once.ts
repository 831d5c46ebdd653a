/**
 * A value made on its first use and kept. The resources build their zod schemas this way: a schema
 * costs start-up time, and a command uses a few resources at most (`mbulk whoami` none).
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

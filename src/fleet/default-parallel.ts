/**
 * Stores a fleet runs at once unless told otherwise: each is a process mostly waiting on its API
 * (a module of its own, so `mbulk --help` can show it without loading the fleet).
 */
export const DEFAULT_PARALLEL = 4;

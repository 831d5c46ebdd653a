/** Progress of a job, reported through callbacks: the CLI renders it (listr2 or plain lines). */
export interface JobProgress {
  phase: 'read' | 'fetch' | 'plan' | 'apply' | 'results' | 'export';
  /** Units done in this phase (rows, items, operations, pages). */
  done: number;
  total?: number | undefined;
  failed?: number | undefined;
  /** Operations per second, when applying. */
  rate?: number | undefined;
  etaSeconds?: number | undefined;
  message?: string | undefined;
}

export interface JobCallbacks {
  onProgress?: ((progress: JobProgress) => void) | undefined;
  /** Things the user should know (fallbacks, encoding guesses, ignored columns). */
  onWarning?: ((message: string) => void) | undefined;
  signal?: AbortSignal | undefined;
}

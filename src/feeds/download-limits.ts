import { UsageError } from '../errors/usage-error.js';

/** The largest feed downloaded unless `--max-download` says otherwise: 2 GiB. */
export const DEFAULT_MAX_DOWNLOAD = 2 * 1024 ** 3;
/** How long a whole feed download may take unless `--download-timeout` says otherwise: 1 hour. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 60 * 60 * 1000;
/** The longest silence (no answer, no byte) a download waits through, whatever the total deadline. */
export const MAX_IDLE_MS = 60_000;

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1000,
  kb: 1000,
  m: 1000 ** 2,
  mb: 1000 ** 2,
  g: 1000 ** 3,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/**
 * `--max-download SIZE` → bytes: a number with an optional unit, decimal (`KB`, `MB`, `GB`: powers
 * of 1000) or binary (`KiB`, `MiB`, `GiB`: powers of 1024), e.g. `50MB`, `2GiB`, `1500000`.
 */
export function parseSize(text: string, option = '--max-download'): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = SIZE_UNITS[match?.[2]?.toLowerCase() ?? 'none'];
  const bytes = match !== null && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new UsageError(
      `${option} must be a size such as 50MB, 2GiB or 1500000 (bytes) (got "${text}")`,
      option.replace(/^--/, ''),
    );
  }
  return bytes;
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** `--download-timeout DURATION` → ms: `500ms`, `30s`, `10m`, `1h` (a bare number is seconds). */
export function parseDuration(text: string, option = '--download-timeout'): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  const ms =
    match !== null ? Math.round(Number(match[1]) * DURATION_UNITS[match[2]?.toLowerCase() ?? 's']!) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new UsageError(
      `${option} must be a duration such as 30s, 10m or 1h (got "${text}")`,
      option.replace(/^--/, ''),
    );
  }
  return ms;
}

/** Bytes for people: `50 MB`, `2 GiB`, `1500000 bytes`, as the user would write them back. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['GB', 1000 ** 3],
    ['MB', 1000 ** 2],
    ['KiB', 1024],
    ['KB', 1000],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** Milliseconds for people: `2 s`, `1.5 s`, `10 min`, `1 h`. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

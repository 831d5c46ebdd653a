import { createHash } from 'node:crypto';
import { invalidParam } from '../sandbox-error.js';

/**
 * Where the sandbox's storage keeps images: one made-up host for every run, whatever port the
 * sandbox listens on, so that a stored URL means the same image after the sandbox restarts (the
 * embedded one takes a new port each run). Any running sandbox serves the same path,
 * `http://127.0.0.1:PORT/__sandbox/images/…`.
 */
export const SANDBOX_IMAGE_BASE = 'http://sandbox.local/__sandbox/images/';

/**
 * Whether `url` is already on the sandbox's storage (kept as is): anything under the base URL,
 * and any `/__sandbox/images/` URL (generated stores and stores saved under another port).
 */
function isHosted(url: string, baseUrl: string): boolean {
  if (url.startsWith(`${baseUrl}/`)) return true;
  return /^https?:\/\/[^/]+\/__sandbox\/images\//i.test(url);
}

/**
 * Re-hosts images: URLs under the sandbox base URL or on its storage are kept; any other URL is
 * "fetched" and answered with a stable storage URL (SANDBOX_IMAGE_BASE + a hash of the source URL:
 * the same for every run and port). A host ending in `.invalid` stands for an unfetchable URL and
 * fails the whole request (400, param `images`).
 */
export function rehostImages(urls: readonly string[], baseUrl: string): string[] {
  return urls.map((url) => {
    if (isHosted(url, baseUrl)) return url;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalidParam('images', `image could not be fetched: ${url}`);
    }
    const host = parsed.hostname.toLowerCase();
    if (host === 'invalid' || host.endsWith('.invalid')) {
      throw invalidParam('images', `image could not be fetched: ${url}`);
    }
    let ext = /\.(jpe?g|png|gif|webp)$/i.exec(parsed.pathname)?.[1]?.toLowerCase() ?? 'png';
    if (ext === 'jpeg') ext = 'jpg';
    const hash = createHash('sha256').update(url).digest('hex').slice(0, 20);
    return `${SANDBOX_IMAGE_BASE}${hash}.${ext}`;
  });
}

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * The system Chromium (Debian's `chromium` package; `.ci/run` installs it when missing), or
 * `MBULK_CHROMIUM` when set. puppeteer-core never downloads a browser. A missing browser is an
 * error that says how to install it: the browser tests must not skip silently.
 */
export function chromiumPath(): string {
  const given = process.env['MBULK_CHROMIUM'];
  if (given) {
    if (!existsSync(given)) throw new Error(`MBULK_CHROMIUM=${given} does not exist.`);
    return given;
  }
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (found) return found;
    } catch {
      // not on PATH
    }
  }
  throw new Error(
    'Chromium is not installed: the review page browser tests need it. Install it with ' +
      '`apt-get update && apt-get install -y chromium` (CI does this in .ci/run), or set MBULK_CHROMIUM to a Chromium binary.',
  );
}

/** Headless Chromium through puppeteer-core. */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // --no-sandbox: CI and these machines run as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
}

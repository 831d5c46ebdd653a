import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The tiers (vitest.config.ts): test/unit has no network and no child process; test/integration
// runs in process (real HTTP on loopback); test/e2e holds whatever starts another process: the
// built binary, a pseudo-terminal, Chromium, `npm pack`, a child killed midway. `npm test` runs
// the first two and must stay quick, so a test that spawns belongs in test/e2e, at the parallel path.
const ROOT = resolve(import.meta.dirname, '../..');

/** What gives a test file away as starting a process, with what to say about it. */
const SPAWNS: [RegExp, string][] = [
  [/['"]node:child_process['"]|['"]child_process['"]/, 'imports child_process'],
  [/['"]puppeteer(-core)?['"]|helpers\/chromium\.js/, 'drives Chromium'],
  [/['"]node-pty['"]/, 'opens a pseudo-terminal'],
  [/bin\/mbulk\.js|['"]bin['"],\s*['"]mbulk\.js['"]|helpers\/cli-process\.js/, 'runs the built binary'],
  [/new StdioClientTransport\(/, 'spawns `mbulk mcp`'],
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each file of a tier that starts a process, with the reason. */
function spawningFiles(tier: string): string[] {
  return tsFiles(join(ROOT, 'test', tier)).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const reasons = SPAWNS.filter(([pattern]) => pattern.test(text)).map(([, why]) => why);
    return reasons.length === 0
      ? []
      : [`${relative(ROOT, file)}: ${reasons.join(', ')} (move it to test/e2e)`];
  });
}

describe('test tiers', () => {
  it('test/unit and test/integration start no process (those tests live in test/e2e)', () => {
    expect([...spawningFiles('unit'), ...spawningFiles('integration')]).toEqual([]);
  });

  it('recognises a spawning file (the check is not vacuous)', () => {
    expect(spawningFiles('e2e').length).toBeGreaterThan(10);
  });
});

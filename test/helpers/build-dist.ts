// vitest globalSetup: tests that run the built `mbulk` (bin/mbulk.js → dist/bundle/main.cjs or mcp.cjs) or import the package
// by name need dist/ to match src/. CI builds it in `npm ci` (prepare); a developer who edited src/
// since the last build gets a rebuild here, once per test run, before any test starts.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

/** When dist/ was last built: the oldest of the library entry and the CLI bundles (written last). */
function builtAt(): number {
  try {
    return Math.min(
      statSync(join(root, 'dist', 'index.js')).mtimeMs,
      statSync(join(root, 'dist', 'bundle', 'main.cjs')).mtimeMs,
      statSync(join(root, 'dist', 'bundle', 'mcp.cjs')).mtimeMs,
    );
  } catch {
    return 0;
  }
}

export default function setup(): void {
  if (newestMtime(join(root, 'src')) <= builtAt()) return;
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  // bin/mbulk.js runs the bundled CLI (dist/bundle/), made from the fresh dist/cli.
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs')], { cwd: root, stdio: 'inherit' });
}

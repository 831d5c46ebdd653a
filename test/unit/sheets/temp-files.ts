import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A temp directory removed after the test file; `write(name, content)` returns the path. */
export function tempFiles(): { dir: string; write: (name: string, content: string | Uint8Array) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'mbulk-sheets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
  };
}

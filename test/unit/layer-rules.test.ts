import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layer rules of eslint.config.js, checked on imports each layer must refuse.
const root = resolve(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

async function restrictedImports(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: resolve(root, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  it('plan/ imports no I/O, client, executor or sheet reader', async () => {
    for (const spec of [
      'node:fs',
      'undici',
      '../api/merchant-client.js',
      '../apply/journal.js',
      '../sheets/csv-reader.js',
    ]) {
      const messages = await restrictedImports('src/plan/example.ts', `import '${spec}';\n`);
      expect(messages, spec).toEqual([expect.stringContaining('plan/ is pure')]);
    }
    expect(await restrictedImports('src/plan/example.ts', "import '../sheets/money.js';\n")).toEqual([]);
  });

  it('the sandbox never imports the client; nothing outside cli imports cli', async () => {
    expect(
      await restrictedImports('src/sandbox/example.ts', "import '../api/merchant-client.js';\n"),
    ).toHaveLength(1);
    expect(await restrictedImports('src/jobs/example.ts', "import '../cli/output.js';\n")).toEqual([
      expect.stringContaining('Only src/cli'),
    ]);
    expect(await restrictedImports('src/cli/example.ts', "import './output.js';\n")).toEqual([]);
  });
});

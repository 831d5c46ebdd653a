import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editDistance, explainUnknownArguments, suggestFlag } from '../../../src/cli/flag-suggestions.js';
import { runCli } from '../../helpers/run-cli.js';

describe('flag suggestions', () => {
  it('measures typos, swaps included', () => {
    expect(editDistance('aply', 'apply')).toBe(1);
    expect(editDistance('appyl', 'apply')).toBe(1);
    expect(editDistance('json', 'json')).toBe(0);
  });

  it('suggests the closest known flag, never a camelCase alias nor a far one', () => {
    const known = ['apply', 'yes', 'runs-dir', 'runsDir', 'concurrency', 'dry-run', 'dryRun', 'h'];
    expect(suggestFlag('aply', known)).toBe('apply');
    expect(suggestFlag('concurency', known)).toBe('concurrency');
    expect(suggestFlag('runs-dr', known)).toBe('runs-dir');
    expect(suggestFlag('conc', known)).toBe('concurrency');
    expect(suggestFlag('banana', known)).toBeUndefined();
  });

  it("rewrites yargs' message: each flag once, as typed, with a suggestion", () => {
    const known = ['apply', 'dry-run', 'dryRun'];
    expect(explainUnknownArguments('Unknown arguments: aply, dry-rn, dryRn', known)).toBe(
      'unknown options --aply (did you mean --apply?), --dry-rn (did you mean --dry-run?)',
    );
    expect(explainUnknownArguments('Unknown argument: zzz', known)).toBe('unknown option --zzz');
    expect(explainUnknownArguments('Not enough arguments', known)).toBe('Not enough arguments');
  });

  it('the CLI: a mistyped flag exits 2 with the suggestion; --dry-run is a dry run; --apply --dry-run is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-flags-'));
    writeFileSync(join(dir, 'stock.csv'), 'sku,quantity\nNOPE-1,3\n');
    const env = { HOME: dir, XDG_DATA_HOME: join(dir, 'data') };
    const typo = await runCli(['import', 'stock', 'stock.csv', '--aply'], env, dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown option --aply (did you mean --apply?)');
    expect(typo.stderr).not.toMatch(/dryRun|Unknown arguments/);
    const both = await runCli(['import', 'stock', 'stock.csv', '--apply', '--dry-run'], env, dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--apply and --dry-run contradict each other');
    const dry = await runCli(['import', 'stock', 'stock.csv', '--dry-run', '--json'], env, dir);
    expect(dry.stderr).not.toMatch(/unknown option/);
    expect(JSON.parse(dry.stdout)).toMatchObject({ applied: false });
  });
});

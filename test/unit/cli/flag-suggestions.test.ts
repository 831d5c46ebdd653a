import { describe, expect, it } from 'vitest';
import { editDistance, explainUnknownArguments, suggestFlag } from '../../../src/cli/flag-suggestions.js';

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
});

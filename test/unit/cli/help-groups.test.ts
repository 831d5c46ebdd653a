import { describe, expect, it } from 'vitest';
import { cliParser } from '../../../src/cli/main.js';
import type { CommandContext } from '../../../src/cli/command-context.js';
import { Output } from '../../../src/cli/output.js';

/** The help of `path` as the parser prints it, and the options its command defines (hidden ones left out). */
async function helpOf(path: string[]): Promise<{ text: string; defined: string[] }> {
  const args = [...path, '--help'];
  const ctx: CommandContext = {
    out: new Output({ json: false, signal: new AbortController().signal, env: {} }),
    env: {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
  const parser = await cliParser(args, ctx, () => {});
  let defined: string[] = [];
  const text = await new Promise<string>((done, fail) => {
    // The callback form prints nothing and never exits the process. Inside it the parser still
    // holds the command's options (its own, its parents', the global ones); after it, no longer.
    void parser.parseAsync(args, {}, (error, _argv, output) => {
      const options = (parser as unknown as { getOptions(): unknown }).getOptions() as {
        key: object;
        hiddenOptions: string[];
        alias: Record<string, string[]>;
      };
      // An option's short alias (-h of --help) is listed on its line.
      const aliases = new Set(
        Object.entries(options.alias).flatMap(([key, names]) =>
          names.map((name) => (name.length < key.length ? name : key)),
        ),
      );
      defined = Object.keys(options.key).filter(
        (key) => !options.hiddenOptions.includes(key) && !aliases.has(key),
      );
      if (error) fail(error);
      else done(output);
    });
  });
  return { text, defined };
}

/** The group headings of a help text, in order, and the long options listed under each. */
function groupsOf(text: string): Array<{ heading: string; flags: string[] }> {
  const groups: Array<{ heading: string; flags: string[] }> = [];
  for (const line of text.split('\n')) {
    if (/^\S.*:$/.test(line)) groups.push({ heading: line, flags: [] });
    const flag = /^ {2,6}(?:-\w, )?--([a-z][\w-]*)/.exec(line);
    if (flag && groups.length > 0) groups.at(-1)!.flags.push(flag[1]!);
  }
  return groups.filter((g) => g.heading !== 'Examples:');
}

const COMMANDS = [
  ['import', 'products', 'x.csv'],
  ['import', 'customers', 'x.csv'],
  ['import', 'stock', 'x.csv'],
  ['export', 'orders', 'x.csv'],
  ['export', 'products', 'x.csv'],
  ['export', 'customers', 'x.csv'],
  ['runs', 'list'],
  ['runs', 'show', 'r'],
  ['runs', 'resume', 'r'],
  ['runs', 'rollback', 'r'],
  ['runs', 'prune'],
  ['apply', 'r'],
];

describe('--help groups', () => {
  it('import products: essentials first, then safety, format / mapping, URL source, output, global options last', async () => {
    const { text } = await helpOf(['import', 'products', 'x.csv']);
    const groups = groupsOf(text);
    expect(groups.map((g) => g.heading)).toEqual([
      'Positionals:',
      'Essentials:',
      'Safety:',
      'Format / mapping:',
      'URL source:',
      'Output:',
      'Global options:',
    ]);
    expect(groups[1]!.flags).toEqual(['apply', 'yes', 'dry-run', 'sheet']);
    expect(groups[2]!.flags).toContain('allow-price-jumps');
    expect(groups[2]!.flags).toContain('stock-unknown');
    expect(groups[3]!.flags).toContain('map');
    expect(groups[5]!.flags).toEqual(['runs-dir', 'report', 'notify-url', 'notify-on']);
    expect(groups.at(-1)!.flags).toEqual(expect.arrayContaining(['json', 'base-url', 'help', 'version']));
    // The essentials come before any other option in the text.
    expect(text.indexOf('--apply')).toBeLessThan(text.indexOf('--base-url'));
  });

  it.each(COMMANDS.map((path) => [path.join(' '), path] as const))(
    '%s: every option it defines is listed once, under a named group (none left in a trailing "Options:")',
    async (_name, path) => {
      const { text, defined } = await helpOf(path);
      const groups = groupsOf(text);
      expect(groups.map((g) => g.heading)).not.toContain('Options:');
      expect(groups.at(-1)!.heading).toBe('Global options:');
      const listed = groups.flatMap((g) => g.flags);
      // Positionals (FILE, RUN) have a section of their own.
      const positionals = [...text.matchAll(/^ {2}([a-z][\w-]*) {2}/gm)].map((m) => m[1]);
      const options = defined.filter((key) => !positionals.includes(key));
      expect(options.length).toBeGreaterThan(10);
      expect([...listed].sort()).toEqual([...new Set(options)].sort());
      expect(new Set(listed).size).toBe(listed.length);
    },
  );
});

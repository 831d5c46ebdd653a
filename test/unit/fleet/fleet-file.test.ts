import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImportOptions } from '../../../src/cli/check-import-options.js';
import { FleetFileError } from '../../../src/fleet/fleet-file-error.js';
import { parseFleetFile, readFleetFile, type ParseFleetOptions } from '../../../src/fleet/fleet-file.js';

const FILE = '/etc/mbulk/stores.yaml';

/** The problems of a file that must not parse, one formatted line each. */
function problems(source: string, options: ParseFleetOptions = {}): string[] {
  try {
    parseFleetFile(source, FILE, options);
  } catch (error) {
    expect(error).toBeInstanceOf(FleetFileError);
    expect((error as FleetFileError).exitCode).toBe(2);
    const lines = (error as FleetFileError).message.split('\n');
    return lines.length === 1
      ? [lines[0]!.replace(/ \(nothing was run\)$/, '')]
      : lines.slice(1).map((l) => l.trim());
  }
  throw new Error('the file parsed');
}

const GOOD = `job: import stock
apply: true
options: { max-changes: 10%, batch-size: 50 }
stores:
  - name: kl-central
    base_url: https://api.example/
    token_env: KL_TOKEN
    feed: https://erp.example/kl.csv
    header_env: KL_FEED_AUTH
  - name: kl-east
    base_url: https://api.example
    token_file: secrets/east
    feed: feeds/east.csv
    header_env: [EAST_A, EAST_B]
    options: { max-changes: 5% }
`;

describe('parseFleetFile', () => {
  it('reads the job, apply, and each store: paths relative to the file, options merged store over file', () => {
    const fleet = parseFleetFile(GOOD, FILE, { checkOptions: checkImportOptions });
    expect(fleet).toEqual({
      file: FILE,
      job: 'import stock',
      kind: 'stock',
      apply: true,
      stores: [
        {
          index: 0,
          name: 'kl-central',
          baseUrl: 'https://api.example',
          token: { env: 'KL_TOKEN' },
          feed: 'https://erp.example/kl.csv',
          headerEnv: ['KL_FEED_AUTH'],
          options: { 'max-changes': '10%', 'batch-size': 50 },
        },
        {
          index: 1,
          name: 'kl-east',
          baseUrl: 'https://api.example',
          token: { file: '/etc/mbulk/secrets/east' },
          feed: '/etc/mbulk/feeds/east.csv',
          headerEnv: ['EAST_A', 'EAST_B'],
          options: { 'max-changes': '5%', 'batch-size': 50 },
        },
      ],
    });
  });

  it('is YAML 1.2: yes is text, so apply: yes is refused rather than read as true', () => {
    expect(problems(GOOD.replace('apply: true', 'apply: yes'))).toEqual([
      'stores.yaml:2: apply: must be true or false',
    ]);
  });

  it('names the file, line, store (index and name) and field of every problem, all at once', () => {
    const source = `job: import stock
stores:
  - name: kl-central
    base_url: https://api.example
    feed: kl.csv
  - name: kl-east
    base_url: ftp://api.example
    token_env: EAST_TOKEN
    token_file: east.token
    feed: east.csv
    tokenenv: X
  - base_url: https://api.example
    token_env: sk_live_Abc123
    feed: ''
`;
    expect(problems(source)).toEqual([
      'stores.yaml:3: stores[0] (kl-central): give token_env or token_file (exactly one)',
      'stores.yaml:6: stores[1] (kl-east): give token_env or token_file (exactly one)',
      'stores.yaml:7: stores[1] (kl-east): base_url: must be an http(s) URL without credentials (the token goes in token_env or token_file)',
      'stores.yaml:11: stores[1] (kl-east): tokenenv: is not a field here (fields: name, base_url, token_env, token_file, feed, header_env, options)',
      'stores.yaml:12: stores[2]: name: is missing',
      'stores.yaml:13: stores[2]: token_env: must be the name of an environment variable in capitals, digits and _ (KL_TOKEN), not its value',
      'stores.yaml:14: stores[2]: feed: must be a file path or an http(s) URL',
    ]);
  });

  it('never quotes a value it refuses: a token pasted where a variable name goes stays out of the message', () => {
    const source = GOOD.replace('token_env: KL_TOKEN', 'token_env: "Bearer abc.def-123"').replace(
      'base_url: https://api.example/',
      'base_url: https://user:hunter2@api.example/',
    );
    const lines = problems(source);
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toMatch(/abc\.def|hunter2|Bearer/);
  });

  it('refuses a missing job or stores, an unknown job, an empty list, a top-level typo and a duplicate name', () => {
    expect(problems('')).toEqual([
      'stores.yaml: must be a mapping with job, stores and optionally apply and options',
    ]);
    expect(problems('job: export orders\nstores: []\nstore: x\n')).toEqual([
      'stores.yaml:1: job: must be one of: import stock, import products, import customers',
      'stores.yaml:2: stores: must list at least one store',
      'stores.yaml:3: store: is not a field here (fields: job, apply, options, stores)',
    ]);
    expect(problems(GOOD.replace('name: kl-east', 'name: KL-Central'))).toEqual([
      'stores.yaml:10: stores[1] (KL-Central): name: is also the name of stores[0]',
    ]);
    expect(problems(GOOD.replace('name: kl-east', 'name: ../etc'))).toEqual([
      'stores.yaml:10: stores[1]: name: must be 1 to 64 letters, digits, ".", "_" or "-" (it names the store\'s directory)',
    ]);
  });

  it('reports YAML syntax errors and keys given twice with their line', () => {
    expect(problems('job: import stock\nstores:\n  - name: [a\n')).toEqual([
      'stores.yaml:4: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    expect(problems('job: import stock\njob: import products\nstores: []\n')).toEqual([
      'stores.yaml:2: not valid YAML: Map keys must be unique',
    ]);
  });

  it("checks options against the job's command: unknown options, the fleet's own, bad numbers, each with its store", () => {
    const source = GOOD.replace(
      '{ max-changes: 10%, batch-size: 50 }',
      '{ max-chnges: 10%, runs-dir: /tmp, json: true }',
    ).replace('{ max-changes: 5% }', '{ batch-size: many, apply: true, concurrency: 2 }');
    expect(problems(source, { checkOptions: checkImportOptions })).toEqual([
      "stores.yaml:3: options.runs-dir: is set by the fleet: each store's runs go to FLEET-DIR/stores/NAME/runs (mbulk fleet run --fleet-dir)",
      "stores.yaml:3: options.json: is set by the fleet: it reads each store's --json result",
      'stores.yaml:3: options.max-chnges: is not an option of mbulk import stock (mbulk import stock --help lists them)',
      'stores.yaml:15: stores[1] (kl-east): options.apply: is set by the fleet: write "apply: true" at the top of the file, or run mbulk fleet run --apply --yes',
      'stores.yaml:15: stores[1] (kl-east): options.batch-size: must be a number',
    ]);
  });

  it('checks options against the kind named by job: an option of products is not one of stock', () => {
    const products = GOOD.replace('job: import stock', 'job: import products').replace(
      '{ max-changes: 10%, batch-size: 50 }',
      '{ missing: hide, allow-deletes: true }',
    );
    expect(problems(products, { checkOptions: checkImportOptions })).toEqual([
      'stores.yaml:15: stores[1] (kl-east): options.max-changes: is not an option of mbulk import products (mbulk import products --help lists them)',
    ]);
  });
});

describe('readFleetFile', () => {
  it('says when the file cannot be read, naming it as given', () => {
    expect(() => readFleetFile('/nonexistent/stores.yaml', { shown: 'stores.yaml' })).toThrow(
      'stores.yaml: cannot read it (ENOENT) (nothing was run)',
    );
  });

  it('reads a file from disk, resolving its paths from its own directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mbulk-fleet-file-'));
    writeFileSync(join(dir, 'stores.yaml'), GOOD);
    expect(readFleetFile(join(dir, 'stores.yaml')).stores[1]?.feed).toBe(join(dir, 'feeds', 'east.csv'));
  });
});

describe('hostile files', () => {
  it('an alias bomb is refused, not expanded', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      bomb.push(
        `${'b'.repeat(i)}: &${'b'.repeat(i)} [${Array(10)
          .fill(`*${i === 1 ? 'a' : 'b'.repeat(i - 1)}`)
          .join(', ')}]`,
      );
    const lines = problems(`job: import stock\nstores: []\n${bomb.join('\n')}\n`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^stores\.yaml: not valid YAML: /);
  });
});

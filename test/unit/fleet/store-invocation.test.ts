import { describe, expect, it } from 'vitest';
import { parseFleetFile, type FleetStore } from '../../../src/fleet/fleet-file.js';
import { inFleetTerms, storeInvocation } from '../../../src/fleet/store-invocation.js';

const fleet = parseFleetFile(
  `job: import stock
options: { max-changes: -5, preserve-sales: true, allow-empty: false }
stores:
  - name: north
    base_url: https://api.example
    token_env: NORTH_TOKEN
    feed: https://erp.example/north.csv?key=x
    header_env: [NORTH_FEED_AUTH]
  - name: south
    base_url: https://south.example/api
    token_file: south.token
    feed: south.csv
`,
  '/srv/fleet/stores.yaml',
);
const [north, south] = fleet.stores as [FleetStore, FleetStore];

const env: NodeJS.ProcessEnv = {
  PATH: '/usr/bin',
  HOME: '/home/ops',
  MERCHANT_API_URL: 'https://shell.example',
  MERCHANT_API_TOKEN: 'shell-token',
  NORTH_TOKEN: ' north-secret ',
  NORTH_FEED_AUTH: 'Authorization: Bearer north-feed-secret',
};

describe('storeInvocation', () => {
  it("runs the job's import with --json, the store's URL and runs directory, its options as flags", () => {
    const inv = storeInvocation(fleet, north, { env, apply: true, runsDir: '/srv/f/stores/north/runs' });
    expect(inv).toEqual({
      args: [
        'import',
        'stock',
        'https://erp.example/north.csv?key=x',
        '--json',
        '--base-url',
        'https://api.example',
        '--runs-dir',
        '/srv/f/stores/north/runs',
        '--header-env',
        'NORTH_FEED_AUTH',
        '--apply',
        '--yes',
        '--max-changes=-5',
        '--preserve-sales',
        '--no-allow-empty',
      ],
      env: {
        PATH: '/usr/bin',
        HOME: '/home/ops',
        MERCHANT_API_TOKEN: 'north-secret',
        NORTH_FEED_AUTH: 'Authorization: Bearer north-feed-secret',
      },
    });
  });

  it("gives a token file by path and no other store's secrets, nor the shell's own target", () => {
    const inv = storeInvocation(fleet, south, { env, apply: false, runsDir: '/r' });
    if ('problem' in inv) throw new Error(inv.problem);
    expect(inv.args).toContain('--token-file');
    expect(inv.args[inv.args.indexOf('--token-file') + 1]).toBe('/srv/fleet/south.token');
    expect(inv.args).not.toContain('--apply');
    expect(inv.env).toEqual({ PATH: '/usr/bin', HOME: '/home/ops' });
  });

  it('never puts a secret on the command line', () => {
    const inv = storeInvocation(fleet, north, { env, apply: true, runsDir: '/r' });
    if ('problem' in inv) throw new Error(inv.problem);
    expect(inv.args.join(' ')).not.toMatch(/secret/);
  });

  it('does not start a store whose token or header variable is unset or blank, naming the variable', () => {
    expect(
      storeInvocation(fleet, north, { env: { ...env, NORTH_TOKEN: ' ' }, apply: true, runsDir: '/r' }),
    ).toEqual({
      problem: 'token_env: the environment variable NORTH_TOKEN is not set or empty',
    });
    const { NORTH_FEED_AUTH: _unset, ...noHeader } = env;
    expect(storeInvocation(fleet, north, { env: noHeader, apply: true, runsDir: '/r' })).toEqual({
      problem: 'header_env: the environment variable NORTH_FEED_AUTH is not set or empty',
    });
  });
});

describe('inFleetTerms', () => {
  it("names the file's fields where the store's process names its own command line", () => {
    expect(
      inFleetTerms(
        'the API token from MERCHANT_API_TOKEN was rejected by https://api.example (401): check …, or set --base-url to the service',
        north,
      ),
    ).toBe(
      'the API token from token_env NORTH_TOKEN was rejected by https://api.example (401): check …, or set base_url to the service',
    );
    expect(inFleetTerms('the API token from --token-file /srv/fleet/south.token was rejected', south)).toBe(
      'the API token from token_file /srv/fleet/south.token was rejected',
    );
    expect(
      inFleetTerms('--header-env NORTH_FEED_AUTH: that environment variable is not set or empty', north),
    ).toBe('header_env NORTH_FEED_AUTH: that environment variable is not set or empty');
  });
});

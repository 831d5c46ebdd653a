import { describe, expect, it } from 'vitest';
import { parseFleetFile } from '../../../src/fleet/fleet-file.js';
import { renderFleetReport } from '../../../src/fleet/fleet-report-html.js';
import { fleetNotification, fleetSummary } from '../../../src/fleet/fleet-summary.js';
import type { StoreResult } from '../../../src/fleet/store-result.js';
import { attr, parseHtml, select, tableRows } from '../../helpers/review-dom.js';

const fleet = parseFleetFile(
  `job: import stock
stores:
${['north', 'south', 'east'].map((name) => `  - { name: ${name}, base_url: https://api.example, token_env: T, feed: f.csv }`).join('\n')}
`,
  '/srv/fleet/stores.yaml',
);

const DIR = '/srv/fleet/.mbulk/fleet/runs/20261122-021500-fleet-ab12';
const stores: StoreResult[] = [
  {
    index: 1,
    name: 'south',
    outcome: 'refused',
    exitCode: 3,
    runId: '20261122-021501-stock-cd34',
    runDir: '/srv/fleet/.mbulk/fleet/stores/south/runs/20261122-021501-stock-cd34',
    reportHtml: '/srv/fleet/.mbulk/fleet/stores/south/runs/20261122-021501-stock-cd34/report.html',
    counts: { change: 40, unchanged: 19 },
    message: 'refused: <script>alert(1)</script> changes 40 of 59 items',
    output: `${DIR}/stores/1-south.json`,
    log: `${DIR}/stores/1-south.log`,
    durationMs: 900,
    result: { ok: false, refused: 'x', applied: false },
  },
  {
    index: 0,
    name: 'north',
    outcome: 'applied',
    exitCode: 0,
    runId: '20261122-021501-stock-ef56',
    runDir: '/srv/fleet/.mbulk/fleet/stores/north/runs/20261122-021501-stock-ef56',
    reportHtml: '/srv/fleet/.mbulk/fleet/stores/north/runs/20261122-021501-stock-ef56/report.html',
    counts: { change: 2, unchanged: 57, invalid: 0 },
    output: `${DIR}/stores/0-north.json`,
    log: `${DIR}/stores/0-north.log`,
    durationMs: 1000,
    result: { ok: true, applied: true, updated: 2, failed: 0, writeRequests: 1, failedRows: [] },
  },
  {
    index: 2,
    name: 'east',
    outcome: 'unreachable',
    exitCode: 4,
    message: 'nothing answers at http://127.0.0.1:1 (from base_url)',
    output: `${DIR}/stores/2-east.json`,
    log: `${DIR}/stores/2-east.log`,
    durationMs: 50,
    result: { ok: false, error: { message: 'x', exitCode: 4 } },
  },
];

const summary = fleetSummary({
  fleet,
  id: '20261122-021500-fleet-ab12',
  dir: DIR,
  reportHtml: `${DIR}/report.html`,
  apply: true,
  parallel: 4,
  onlyIndex: undefined,
  startedAt: new Date('2026-11-22T02:15:00Z'),
  endedAt: new Date('2026-11-22T02:15:03Z'),
  stores,
});

describe('fleetSummary', () => {
  it('orders the stores as the file does, totals outcomes, exit codes and what the applied stores wrote', () => {
    expect(summary.stores.map((s) => s.name)).toEqual(['north', 'south', 'east']);
    expect(summary).toMatchObject({
      ok: false,
      exitCode: 4,
      mode: 'apply',
      job: 'import stock',
      file: '/srv/fleet/stores.yaml',
    });
    expect(summary.totals).toEqual({
      stores: 3,
      outcomes: { applied: 1, refused: 1, unreachable: 1 },
      exitCodes: { '0': 1, '3': 1, '4': 1 },
      applied: { updated: 2, failed: 0, writeRequests: 1 },
    });
  });

  it('the notification has one line per store and leaves out their whole results', () => {
    const posted = fleetNotification(summary);
    expect(String(posted['text']).split('\n')).toEqual([
      'mbulk fleet run: failed (exit 4) · import stock (apply) on 3 stores: 1 applied · 1 refused · 1 unreachable · fleet run 20261122-021500-fleet-ab12',
      '• north: applied (exit 0) · change 2 · unchanged 57 · run 20261122-021501-stock-ef56',
      '• south: refused (exit 3) · change 40 · unchanged 19 · run 20261122-021501-stock-cd34 · refused: <script>alert(1)</script> changes 40 of 59 items',
      '• east: unreachable (exit 4) · nothing answers at http://127.0.0.1:1 (from base_url)',
    ]);
    expect((posted['stores'] as Record<string, unknown>[]).every((s) => !('result' in s))).toBe(true);
    expect(summary.stores.every((s) => 'result' in s)).toBe(true);
  });
});

describe('renderFleetReport', () => {
  const html = renderFleetReport(summary);
  const dom = parseHtml(html);

  it('has no script and a policy that allows none', () => {
    expect(select(dom, 'script')).toEqual([]);
    const csp = select(dom, 'meta').find((m) => attr(m, 'http-equiv') === 'Content-Security-Policy');
    expect(csp && attr(csp, 'content')).toMatch(/^default-src 'none'; style-src 'unsafe-inline'/);
    expect(html).not.toContain('<script>alert(1)');
  });

  it("lists every store with its outcome, exit code and plan, linking its run's page and its log relatively", () => {
    const [table] = select(dom, 'table', 'stores');
    expect(tableRows(table!)).toEqual([
      [
        '0',
        'north',
        'applied',
        '0',
        'change 2 · unchanged 57',
        '20261122-021501-stock-ef56',
        'log · json',
        '',
      ],
      [
        '1',
        'south',
        'refused',
        '3',
        'change 40 · unchanged 19',
        '20261122-021501-stock-cd34',
        'log · json',
        'refused: <script>alert(1)</script> changes 40 of 59 items',
      ],
      [
        '2',
        'east',
        'unreachable',
        '4',
        '-',
        '',
        'log · json',
        'nothing answers at http://127.0.0.1:1 (from base_url)',
      ],
    ]);
    expect(select(table!, 'a').map((a) => attr(a, 'href'))).toEqual([
      '../../stores/north/runs/20261122-021501-stock-ef56/report.html',
      'stores/0-north.log',
      'stores/0-north.json',
      '../../stores/south/runs/20261122-021501-stock-cd34/report.html',
      'stores/1-south.log',
      'stores/1-south.json',
      'stores/2-east.log',
      'stores/2-east.json',
    ]);
    expect(select(dom, 'li').map((li) => attr(li, 'data-count'))).toEqual([
      'applied',
      'refused',
      'unreachable',
    ]);
  });
});

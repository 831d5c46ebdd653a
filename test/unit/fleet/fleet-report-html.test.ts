import { describe, expect, it } from 'vitest';
import { renderFleetReport } from '../../../src/fleet/fleet-report-html.js';
import type { FleetSummary } from '../../../src/fleet/fleet-summary.js';
import { attr, parseHtml, select, tableRows, text } from '../../helpers/review-dom.js';

// Store text in the fleet's review page is data: a name, a path, an outcome or a message holding
// markup shows as that text, and makes no element, attribute or script.
const SCRIPT = '<script>alert(1)</script>';
const BREAKS_OUT = '"><img src=x onerror=alert(2)>';
const DIR = `/srv/fleet ${SCRIPT}/.mbulk/fleet/runs/20261122-021500-fleet-ab12`;

const summary: FleetSummary = {
  ok: false,
  exitCode: 2,
  fleetRunId: '20261122-021500-fleet-ab12',
  fleetRunDir: DIR,
  reportHtml: `${DIR}/report.html`,
  file: `/srv/fleet ${SCRIPT}/stores.yaml`,
  job: 'import stock',
  mode: 'plan',
  parallel: 2,
  startedAt: '2026-11-22T02:15:00.000Z',
  endedAt: '2026-11-22T02:15:03.000Z',
  totals: { stores: 1, outcomes: { [`config ${SCRIPT}`]: 1 }, exitCodes: { '2': 1 }, applied: {} },
  stores: [
    {
      index: 0,
      name: `shop ${SCRIPT}`,
      outcome: `config ${SCRIPT}` as FleetSummary['stores'][number]['outcome'],
      exitCode: 2,
      runId: `run ${BREAKS_OUT}`,
      reportHtml: `${DIR}/stores/${BREAKS_OUT}/report.html`,
      counts: { [`rows ${SCRIPT}`]: 2 },
      message: `feed ${SCRIPT}${BREAKS_OUT}.csv was not found`,
      output: `${DIR}/stores/0-shop.json`,
      log: `${DIR}/stores/0-shop.log`,
      durationMs: 10,
    },
  ],
};

describe('renderFleetReport with markup in store text', () => {
  const html = renderFleetReport(summary);
  const dom = parseHtml(html);

  it('makes no element of it: no script, no img', () => {
    expect(select(dom, 'script')).toEqual([]);
    expect(select(dom, 'img')).toEqual([]);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
  });

  it('shows it as text, in the table and the facts', () => {
    const [table] = select(dom, 'table', 'stores');
    expect(tableRows(table!)).toEqual([
      [
        '0',
        `shop ${SCRIPT}`,
        `config ${SCRIPT}`,
        '2',
        `rows ${SCRIPT} 2`,
        `run ${BREAKS_OUT}`,
        'log · json',
        `feed ${SCRIPT}${BREAKS_OUT}.csv was not found`,
      ],
    ]);
    expect(select(dom, 'dd').map(text)).toContain(`/srv/fleet ${SCRIPT}/stores.yaml`);
    expect(select(dom, 'li').map((li) => attr(li, 'data-count'))).toEqual([`config ${SCRIPT}`]);
  });

  it('keeps a link on its page: the path is percent-encoded, no attribute breaks out', () => {
    const links = select(dom, 'a');
    expect(links.map((a) => Object.keys(a.attribs))).toEqual([['href'], ['href'], ['href']]);
    expect(attr(links[0]!, 'href')).toBe(`stores/${encodeURIComponent(BREAKS_OUT)}/report.html`);
  });
});

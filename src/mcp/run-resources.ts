import { readFileSync } from 'node:fs';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listRuns, type RunDirectory } from '../apply/run-directory.js';
import { UsageError } from '../errors/usage-error.js';
import { planHash } from './plan-hash.js';
import { readPlanView } from './plan-view.js';
import { runFields } from './tool-schemas.js';

/** Runs listed as resources (the newest; older ones through list_runs). */
const LISTED_RUNS = 100;
/** Characters of report.md per resource page (a page ends at a line break when it can). */
export const REPORT_PAGE_CHARS = 64_000;

/** The pages of a text: each at most `size` characters, cut after a line break when there is one. */
export function textPages(text: string, size: number): string[] {
  const pages: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    if (end < text.length) {
      const lineEnd = text.lastIndexOf('\n', end - 1);
      if (lineEnd >= at) end = lineEnd + 1;
    }
    pages.push(text.slice(at, end));
    at = end;
  }
  return pages.length === 0 ? [''] : pages;
}

/** Each run's report.md (a page at a time) and plan summary as resources. */
export function registerRunResources(
  server: McpServer,
  runsRoot: string,
  run: (id: string) => RunDirectory,
): void {
  const list = (suffix: string, name: string) => async () => ({
    resources: listRuns(runsRoot)
      .reverse()
      .slice(0, LISTED_RUNS)
      .map((m) => ({ uri: `mbulk://runs/${m.id}/${suffix}`, name: `${m.id} ${name}` })),
  });
  const reportPage = (uri: URL, runId: string, pageText: string | undefined) => {
    const page = pageText === undefined ? 1 : Number(pageText);
    const r = run(runId);
    const pages = textPages(readFileSync(r.file('report'), 'utf8'), REPORT_PAGE_CHARS);
    if (!Number.isInteger(page) || page < 1 || page > pages.length)
      throw new UsageError(
        `report.md of run ${r.id} has pages 1 to ${pages.length}, not ${pageText}`,
        'page',
      );
    const next = page < pages.length ? `mbulk://runs/${r.id}/report.md?page=${page + 1}` : null;
    const footer = `\n<!-- page ${page} of ${pages.length}${next ? `; next: ${next}` : ''} -->\n`;
    return {
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/markdown',
          text: `${pages[page - 1] ?? ''}${pages.length > 1 ? footer : ''}`,
          _meta: { page, pages: pages.length, next },
        },
      ],
    };
  };
  server.registerResource(
    'run-report',
    new ResourceTemplate('mbulk://runs/{runId}/report.md', { list: list('report.md', 'report') }),
    {
      title: "A run's report",
      description: `report.md of a run, ${REPORT_PAGE_CHARS} characters a page: a longer one ends with the next page's URI (…/report.md?page=2)`,
      mimeType: 'text/markdown',
    },
    (uri, { runId }) => reportPage(uri, String(runId), undefined),
  );
  server.registerResource(
    'run-report-page',
    new ResourceTemplate('mbulk://runs/{runId}/report.md{?page}', { list: undefined }),
    { title: "A page of a run's report", description: 'One page of report.md', mimeType: 'text/markdown' },
    (uri, { runId, page }) => reportPage(uri, String(runId), String(page)),
  );
  server.registerResource(
    'run-plan-summary',
    new ResourceTemplate('mbulk://runs/{runId}/plan-summary', { list: list('plan-summary', 'plan summary') }),
    {
      title: "A run's plan summary",
      description: 'Counts, guards and hash of a run',
      mimeType: 'application/json',
    },
    (uri, { runId }) => {
      const r = run(String(runId));
      const view = readPlanView(r);
      const summary = {
        ...runFields(r.refresh()),
        writes: view.writes,
        hides: view.hides,
        deletes: view.deletes,
        invalidRows: view.invalid.length,
        priceJumps: view.priceJumps.length,
        planHash: planHash(r),
      };
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(summary) }] };
    },
  );
}

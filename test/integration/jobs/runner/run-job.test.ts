import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Papa from 'papaparse';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { MerchantClient } from '../../../../src/api/merchant-client.js';
import { BackupLog } from '../../../../src/apply/backup.js';
import { RunDirectory } from '../../../../src/apply/run-directory.js';
import { RefusedError } from '../../../../src/errors/refused-error.js';
import type { JobDefinition, JobSession, SummaryFields } from '../../../../src/jobs/runner/job-definition.js';
import { invalidRowsError } from '../../../../src/jobs/runner/invalid-rows-error.js';
import { RowIssuesSchema, RunInputSchema } from '../../../../src/jobs/runner/plan-file-parts.js';
import { planFileSchema } from '../../../../src/jobs/runner/plan-file.js';
import { releasePlanningMemory } from '../../../../src/jobs/runner/release-memory.js';
import { runJob } from '../../../../src/jobs/runner/run-job.js';
import { cliSummaryOf } from '../../../../src/jobs/runner/summary-fields.js';
import type { RowIssue } from '../../../../src/mapping/row-issue.js';
import type * as ReadSheetModule from '../../../../src/sheets/read-sheet.js';

// Whether an apply starts by giving back what planning left: watched, not run (a full collection
// per test would only cost time; release-memory.test.ts tests the collection itself). In the
// integration project, where each file has its own module cache: unit files share theirs, so a
// unit file that loaded run-job.ts first kept the mock from reaching it (seen failing there).
vi.mock('../../../../src/jobs/runner/release-memory.js', () => ({
  releasePlanningMemory: vi.fn(() => false),
}));

/** Rows every sheet reader of this file has handed out (the input copies read for results.csv). */
const rowsRead = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../../src/sheets/read-sheet.js', async (importActual) => {
  const { countingReadSheet } = await import('../../../helpers/counting-read-sheet.js');
  return countingReadSheet(await importActual<typeof ReadSheetModule>(), rowsRead);
});

/**
 * A small kind over a temp-dir run directory: one row of `items.csv` per item, one operation per
 * item; what an item's write does is in the sheet (`ok`, `reject`: a 400, `lost`: no answer,
 * `stop`: the user stops the run while it is sent).
 */
const FakeItemSchema = z.looseObject({
  key: z.string(),
  row: z.number(),
  does: z.enum(['ok', 'reject', 'lost', 'stop']),
});
type FakeItem = z.infer<typeof FakeItemSchema>;

const FakePlanSchema = planFileSchema('fake', {
  input: RunInputSchema,
  items: z.array(FakeItemSchema),
  issues: RowIssuesSchema,
  refusal: z.string().optional(),
});
type FakePlan = z.infer<typeof FakePlanSchema>;

interface FakeOp {
  kind: 'fake-write';
  key: string;
  idempotent: true;
  item: FakeItem;
}

/** Written items, failed ones; with `pending`, not-run changes counted apart. */
const failureSummary = {
  written: { of: 'done', run: 'items_written' },
  failed: { of: 'failed' },
  requests: { of: 'requests', cli: 'writeRequests' },
} satisfies SummaryFields;
const pendingSummary = { ...failureSummary, notRun: { of: 'notRun', run: false } } satisfies SummaryFields;

type FakeSession = JobSession<FakeOp, { id: string }, object>;
type FakeKind = JobDefinition<FakePlan, FakeOp, { id: string }, SummaryFields>;

let root: string;
let sent: string[];
let stop: AbortController;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mbulk-run-job-'));
  sent = [];
  stop = new AbortController();
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A client of the run's store: only `me` (the store check) may be asked. */
const client = new Proxy({} as MerchantClient, {
  get: (_t, name) => {
    if (name === 'me') return () => Promise.resolve({ id: 'st_1', name: 'Shop', currency: 'MYR' });
    if (name === 'then') return undefined;
    throw new Error(`the client was used (${String(name)})`);
  },
});

/** An API answer as the client throws it: a 4xx is a definite failure, anything else unknown. */
function apiError(status: number, code: string, message: string): Error {
  return Object.assign(new Error(message), { status, code });
}

function fakeSession(ctx: Parameters<FakeKind['session']>[0]): FakeSession {
  return {
    operations: ctx.file.items.map((item): FakeOp => ({
      kind: 'fake-write',
      key: item.key,
      idempotent: true,
      item,
    })),
    execute: async (op, exec) => {
      await ctx.saveBefore([{ type: 'thing', id: op.key, before: { n: 1 } }]);
      ctx.countRequest();
      sent.push(op.key);
      if (op.item.does === 'reject') throw apiError(400, 'bad_thing', `${op.key} is bad`);
      // The first answer is lost; a replay is answered.
      if (op.item.does === 'lost' && exec.attempt === 1) throw apiError(503, 'unavailable', 'no answer');
      if (op.item.does === 'stop') stop.abort();
      return { id: `id_${op.key}` };
    },
    // No failure of its own: the runner gives a change not done its operation's (failureOf).
    changes: (o) => [
      {
        status: o.status,
        outcome: 'created',
        rows: [{ sheet: 'items.csv', row: o.op.item.row }],
        key: o.key,
      },
    ],
    results: { invalid: ctx.file.issues },
  };
}

function fakeKind<Fields extends SummaryFields>(
  summary: Fields,
  session: (ctx: Parameters<FakeKind['session']>[0]) => FakeSession = fakeSession,
): JobDefinition<FakePlan, FakeOp, { id: string }, Fields> {
  return {
    kind: 'fake',
    planSchema: FakePlanSchema,
    refuse: (_run, file) => {
      if (file.refusal) throw new RefusedError(file.refusal);
    },
    session,
    summary,
    report: (run) => fs.writeFileSync(run.file('report'), 'report\n'),
  };
}

/** A planned run of the fake kind: its plan.json and its copy of `items.csv`. */
function plannedRun(items: FakeItem[], extra: Partial<FakePlan> = {}): RunDirectory {
  const run = RunDirectory.create(path.join(root, 'runs'), {
    kind: 'fake',
    input: 'items.csv',
    target: 'test',
    storeId: 'st_1',
  });
  const keys = new Map(items.map((i) => [i.row, i.key]));
  for (const i of extra.issues ?? []) if (!keys.has(i.rowNumber)) keys.set(i.rowNumber, `bad-${i.rowNumber}`);
  const rows = [...keys].map(([row, key]) => ({ row, key })).sort((a, b) => a.row - b.row);
  fs.writeFileSync(
    path.join(run.dir, 'input-items.csv'),
    `key,note\r\n${rows.map((r) => `${r.key},row ${r.row}`).join('\r\n')}\r\n`,
  );
  const plan: FakePlan = {
    kind: 'fake',
    version: 1,
    input: { original: 'items.csv', copy: 'input-items.csv' },
    items,
    issues: [],
    ...extra,
  };
  run.writePlan(plan);
  return run;
}

function readCsv(file: string): Record<string, string>[] {
  const text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  return Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;
}

const items = (...does: FakeItem['does'][]): FakeItem[] =>
  does.map((d, i) => ({ key: `k${i + 1}`, row: i + 2, does: d }));

describe('runJob: the runner owns the whole apply of a kind', () => {
  it('tallies every change once; the declared counts make the summary, run.json counts and the CLI summary', async () => {
    const run = plannedRun(items('ok', 'reject', 'ok'));
    const kind = fakeKind(failureSummary);
    const summary = await runJob(run, kind, { client, concurrency: 1 });
    expect(summary).toMatchObject({ status: 'completed', written: 2, failed: 1, unknown: 0, requests: 3 });
    expect(summary.failedRows).toEqual([
      { sheet: 'items.csv', row: 3, code: 'bad_thing', message: 'k2 is bad' },
    ]);
    expect(cliSummaryOf(kind.summary, summary)).toEqual({
      written: 2,
      failed: 1,
      writeRequests: 3,
      failedRows: summary.failedRows,
    });
    expect(readCsv(run.file('results')).map((r) => [r['row'], r['outcome'], r['error_code']])).toEqual([
      ['2', 'created', ''],
      ['3', 'failed', 'bad_thing'],
      ['4', 'created', ''],
    ]);
    expect(readCsv(run.file('failed')).map((r) => r['key'])).toEqual(['k2']);
    expect(run.refresh().counts).toMatchObject({ items_written: 2, failed: 1, requests: 3 });
    expect(run.meta.counts['written']).toBeUndefined();
    expect(run.meta.status).toBe('applied');
    expect(fs.readFileSync(run.file('report'), 'utf8')).toBe('report\n');
    // Before-states saved for each write, finalised into backup.json.
    const backup = JSON.parse(fs.readFileSync(run.file('backup'), 'utf8')) as { entities: unknown[] };
    expect(backup.entities).toHaveLength(3);
  });

  describe('changes the run did not reach (stopped by the user)', () => {
    it('a kind that declares a notRun count counts them apart: not failed, skipped in results.csv, not failed rows', async () => {
      const run = plannedRun(items('ok', 'stop', 'ok', 'ok'));
      const kind = fakeKind(pendingSummary);
      const summary = await runJob(run, kind, { client, concurrency: 1, signal: stop.signal });
      expect(sent).toEqual(['k1', 'k2']);
      expect(summary).toMatchObject({ status: 'interrupted', written: 2, failed: 0, notRun: 2 });
      expect(summary.failedRows).toEqual([]);
      expect(cliSummaryOf(kind.summary, summary)).toMatchObject({ failed: 0, notRun: 2 });
      expect(run.refresh().counts).toMatchObject({ items_written: 2, failed: 0 });
      expect(run.meta.counts['notRun']).toBeUndefined();
      const results = readCsv(run.file('results'));
      expect(results.map((r) => [r['row'], r['outcome'], r['error_code']])).toEqual([
        ['2', 'created', ''],
        ['3', 'created', ''],
        ['4', 'skipped', 'not_run'],
        ['5', 'skipped', 'not_run'],
      ]);
    });

    it('a kind without one counts them as failed, and lists them as failed rows', async () => {
      const run = plannedRun(items('ok', 'stop', 'ok', 'ok'));
      const summary = await runJob(run, fakeKind(failureSummary), {
        client,
        concurrency: 1,
        signal: stop.signal,
      });
      expect(summary).toMatchObject({ status: 'interrupted', written: 2, failed: 2 });
      expect(summary).not.toHaveProperty('notRun');
      expect(summary.failedRows.map((r) => [r.row, r.code])).toEqual([
        [4, 'not_run'],
        [5, 'not_run'],
      ]);
    });
  });

  it('starts by collecting the garbage a plan in this process may have left, at the default threshold', async () => {
    vi.mocked(releasePlanningMemory).mockClear();
    let collectedBeforeSend = false;
    const kind = fakeKind(failureSummary, (ctx) => {
      collectedBeforeSend = vi.mocked(releasePlanningMemory).mock.calls.length === 1;
      return fakeSession(ctx);
    });
    await runJob(plannedRun(items('ok')), kind, { client, concurrency: 1 });
    expect(vi.mocked(releasePlanningMemory).mock.calls).toEqual([[]]);
    expect(collectedBeforeSend).toBe(true);
  });

  it('invalid rows become failed rows: invalid in results.csv, in failed.csv, in failedRows', async () => {
    const issue: RowIssue = {
      severity: 'error',
      code: 'bad_cell',
      message: 'the cell is bad',
      sheet: 'items.csv',
      rowNumber: 3,
      column: 'B',
    };
    const warning: RowIssue = { ...issue, severity: 'warning', code: 'odd_cell', rowNumber: 2 };
    const run = plannedRun([{ key: 'k1', row: 2, does: 'ok' }], { issues: [issue, warning] });
    const summary = await runJob(run, fakeKind(failureSummary), { client });
    expect(summary.failedRows).toEqual([
      { sheet: 'items.csv', row: 3, code: 'bad_cell', message: 'the cell is bad' },
    ]);
    expect(readCsv(run.file('results')).map((r) => [r['row'], r['outcome'], r['error_code']])).toEqual([
      ['2', 'created', ''],
      ['3', 'invalid', 'bad_cell'],
    ]);
    expect(readCsv(run.file('failed'))).toEqual([
      { key: 'bad-3', note: 'row 3', mbulk_error: 'the cell is bad' },
    ]);
  });

  it('makes results.csv while the operations go: the rows no change names are read before the last write is answered', async () => {
    // 20,000 rows of the sheet, one of them planned: the others are read while it is sent.
    const run = plannedRun([{ key: 'k1', row: 20_001, does: 'ok' }]);
    const copy = path.join(run.dir, 'input-items.csv');
    const others = Array.from({ length: 19_999 }, (_, i) => `other${i + 2},row ${i + 2}`);
    fs.writeFileSync(copy, `key,note\r\n${others.join('\r\n')}\r\nk1,row 20001\r\n`);
    rowsRead.count = 0;
    let readWhileSent = 0;
    const kind = fakeKind(failureSummary, (ctx) => {
      const session = fakeSession(ctx);
      return {
        ...session,
        execute: async (op, exec) => {
          for (let i = 0; i < 2000 && rowsRead.count < 20_000; i++)
            await new Promise((r) => setTimeout(r, 5));
          readWhileSent = rowsRead.count;
          return session.execute(op, exec);
        },
      };
    });
    const summary = await runJob(run, kind, { client, concurrency: 1 });
    expect(readWhileSent).toBe(20_000);
    expect(summary).toMatchObject({ written: 1, failed: 0 });
    const results = readCsv(run.file('results'));
    expect(results).toHaveLength(20_000);
    expect(results.filter((r) => r['outcome'] === 'unchanged')).toHaveLength(19_999);
    expect(results.at(-1)).toMatchObject({ row: '20001', outcome: 'created', key: 'k1' });
    // Read once: the rows read ahead are not read again.
    expect(rowsRead.count).toBe(20_000);
  });

  it('the backup is flushed and closed when the execution throws, and nothing else is written', async () => {
    const close = vi.spyOn(BackupLog.prototype, 'close');
    const run = plannedRun(items('ok', 'reject'));
    const kind = fakeKind(failureSummary, (ctx) => ({
      ...fakeSession(ctx),
      // The rejection stops the pass, and the other way to send cannot be built.
      isFatal: (error) => (error as { code?: string }).code === 'bad_thing',
      secondPass: () => {
        throw new Error('the other way cannot be built');
      },
    }));
    await expect(runJob(run, kind, { client, concurrency: 1 })).rejects.toThrow(
      'the other way cannot be built',
    );
    expect(close).toHaveBeenCalledTimes(1);
    expect(fs.readFileSync(run.file('backupLog'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(fs.existsSync(run.file('results'))).toBe(false);
    expect(run.refresh().counts['items_written']).toBeUndefined();
  });

  describe('follow-up passes', () => {
    it('a kind that replays unknown outcomes sends a lost answer once more, and the tally is that pass', async () => {
      const run = plannedRun(items('ok', 'lost'));
      const kind = fakeKind(failureSummary, (ctx) => {
        const session = fakeSession(ctx);
        return {
          ...session,
          secondPass: (first) =>
            first.status === 'completed' && first.counts.unknown > 0
              ? { operations: session.operations, retryFailed: false }
              : undefined,
        };
      });
      const summary = await runJob(run, kind, { client, concurrency: 1 });
      expect(sent).toEqual(['k1', 'k2', 'k2']);
      expect(summary).toMatchObject({ status: 'completed', written: 2, failed: 0, unknown: 0 });
      expect(readCsv(run.file('results')).map((r) => r['outcome'])).toEqual(['created', 'created']);
    });

    it('without it, the lost answer stays unknown (failed, not resent)', async () => {
      const run = plannedRun(items('ok', 'lost'));
      const summary = await runJob(run, fakeKind(failureSummary), { client, concurrency: 1 });
      expect(sent).toEqual(['k1', 'k2']);
      expect(summary).toMatchObject({ written: 1, failed: 1, unknown: 1 });
    });

    it('a second pass sends its operations when the first stops on the error the kind calls fatal', async () => {
      const run = plannedRun(items('ok', 'reject', 'ok'));
      const badThing = (error: unknown) => (error as { code?: string }).code === 'bad_thing';
      const kind = fakeKind(failureSummary, (ctx) => ({
        ...fakeSession(ctx),
        isFatal: badThing,
        // Another way to send every item: here, one that the service accepts.
        secondPass: (first) =>
          first.status === 'aborted' && badThing(first.fatalError)
            ? {
                operations: ctx.file.items.map((item): FakeOp => ({
                  kind: 'fake-write',
                  key: `other:${item.key}`,
                  idempotent: true,
                  item: { ...item, does: 'ok' },
                })),
              }
            : undefined,
      }));
      const summary = await runJob(run, kind, { client, concurrency: 1 });
      // The rejection stopped the first pass before k3; the other way sent all three.
      expect(sent).toEqual(['k1', 'k2', 'other:k1', 'other:k2', 'other:k3']);
      expect(summary).toMatchObject({ status: 'completed', written: 3, failed: 0 });
    });
  });

  it('a refusal writes nothing: no journal, backup, results or counts, and nothing is sent', async () => {
    const run = plannedRun(items('ok'), { refusal: 'too many changes' });
    await expect(runJob(run, fakeKind(failureSummary), { client })).rejects.toThrow('too many changes');
    expect(sent).toEqual([]);
    expect(fs.readdirSync(run.dir).sort()).toEqual(['input-items.csv', 'plan.json', 'run.json']);
    expect(run.refresh()).toMatchObject({ status: 'planned', counts: {} });
  });

  it("a plan's invalid rows (the kind's invalidRows) are refused after its own refusal, and nothing is sent", async () => {
    const issue: RowIssue = {
      severity: 'error',
      code: 'bad_cell',
      message: 'bad',
      sheet: 'items.csv',
      rowNumber: 3,
    };
    const kind = {
      ...fakeKind(failureSummary),
      invalidRows: (_run: RunDirectory, file: FakePlan) =>
        invalidRowsError(file.issues, {
          skipInvalid: false,
          invalid: 1,
          done: 'written',
          report: 'report.md',
        }),
    };
    await expect(runJob(plannedRun(items('ok'), { issues: [issue] }), kind, { client })).rejects.toThrow(
      'nothing was written: 1 invalid row(s)',
    );
    // The kind's own refusal comes first.
    await expect(
      runJob(plannedRun(items('ok'), { issues: [issue], refusal: 'too many changes' }), kind, { client }),
    ).rejects.toThrow('too many changes');
    expect(sent).toEqual([]);
  });
});

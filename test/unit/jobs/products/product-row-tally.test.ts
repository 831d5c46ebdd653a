import { describe, expect, it } from 'vitest';
import { productRowTally } from '../../../../src/jobs/products/product-report.js';
import type { ProductPlanFile } from '../../../../src/jobs/products/product-plan-file.js';

type TallyInput = Pick<ProductPlanFile, 'plan' | 'issues' | 'rows' | 'skippedRows'>;
type Row = { sheet: string; rowNumber: number };

/** The tally as it was counted before (a set of `sheet\0row` keys per kind): the reference. */
function referenceTally(file: TallyInput) {
  const key = (r: Row) => `${r.sheet}\0${r.rowNumber}`;
  const invalid = new Set<string>();
  const markedSkip = new Set<string>();
  const inPlan = new Set<string>();
  for (const e of file.plan.entries) {
    const into = e.action === 'invalid' ? invalid : e.action === 'skip' ? markedSkip : inPlan;
    for (const r of e.rows) into.add(key(r));
  }
  for (const i of file.issues) if (i.severity === 'error') invalid.add(key(i));
  for (const k of invalid) {
    inPlan.delete(k);
    markedSkip.delete(k);
  }
  return {
    read: file.rows,
    inPlan: inPlan.size,
    leftOut: file.skippedRows?.length ?? 0,
    markedSkip: markedSkip.size,
    invalid: invalid.size,
  };
}

function entry(action: string, rows: Row[]) {
  return { action, rows };
}

function fileOf(entries: { action: string; rows: Row[] }[], issues: (Row & { severity: string })[]) {
  return {
    plan: { entries },
    issues,
    rows: 1000,
    skippedRows: [{}, {}],
  } as unknown as TallyInput;
}

describe('productRowTally', () => {
  it('counts every row once by what became of it, as the key sets did, over two sheets and odd rows', () => {
    const p = (n: number): Row => ({ sheet: 'products', rowNumber: n });
    const o = (n: number): Row => ({ sheet: 'options', rowNumber: n });
    const file = fileOf(
      [
        entry('update', [p(2), p(3), o(2)]),
        entry('noop', [p(4)]),
        entry('create', [p(5), p(6)]),
        // The same row in two entries (a row shared by a product and its options) counts once.
        entry('noop', [p(4), o(3)]),
        entry('skip', [p(7), p(8)]),
        // A row both in the plan and marked skip is counted in both, as before.
        entry('skip', [p(5)]),
        entry('invalid', [p(9), o(4)]),
        // A row far past the others (the byte array grows), and row numbers that are no index.
        entry('noop', [p(70_000), p(-1), p(2.5)]),
      ],
      [
        // An error on a row in the plan makes it invalid only; a warning changes nothing.
        { ...p(3), severity: 'error' },
        { ...p(7), severity: 'error' },
        { ...p(4), severity: 'warning' },
        { ...o(99), severity: 'error' },
        { ...p(-1), severity: 'error' },
      ],
    );
    const tally = productRowTally(file);
    expect(tally).toEqual(referenceTally(file));
    expect(tally).toEqual({ read: 1000, inPlan: 8, leftOut: 2, markedSkip: 2, invalid: 6 });
    // Asked again (the report, the counts and the terminal each ask): the same answer, and a new one
    // once the file's issues are others.
    expect(productRowTally(file)).toEqual(tally);
    const more = { ...file, issues: [...file.issues, { ...p(2), severity: 'error' }] } as TallyInput;
    expect(productRowTally(more)).toEqual(referenceTally(more));
    expect(productRowTally(more).invalid).toBe(7);
  });

  it('counts a 10,000-row plan as the key sets did', () => {
    const entries: { action: string; rows: Row[] }[] = [];
    const issues: (Row & { severity: string })[] = [];
    const actions = ['noop', 'update', 'create', 'skip', 'invalid', 'noop', 'hide'];
    for (let i = 0; i < 3334; i++) {
      const rows = [0, 1, 2].map((n) => ({ sheet: 'catalog.csv', rowNumber: 2 + i * 3 + n }));
      entries.push(entry(actions[i % actions.length] ?? 'noop', rows));
      if (i % 13 === 0) issues.push({ ...(rows[1] as Row), severity: i % 2 === 0 ? 'error' : 'warning' });
    }
    const file = fileOf(entries, issues);
    expect(productRowTally(file)).toEqual(referenceTally(file));
  });
});

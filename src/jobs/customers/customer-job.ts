import { idempotencyKey } from '../../api/idempotency-key.js';
import { takeListing, WriteCheck, type WriteCheckOptions } from '../../apply/write-check.js';
import {
  DEFAULT_CUSTOMER_MATCH,
  type CustomerPlan,
  type CustomerPlanEntry,
} from '../../plan/customer-plan.js';
import type { CustomerCreate, CustomerUpdate } from '../../schema/index.js';
import { notWrittenByKey } from '../../results/change-outcome.js';
import { defineJob } from '../runner/define-job.js';
import type { ApplyJobOptions, JobContext, JobSession, SummaryOf } from '../runner/job-definition.js';
import type { DeclaredRow } from '../../results/sheet-results.js';
import { checkCustomerDrift } from './customer-drift.js';
import { CustomerPlanFileSchema, type CustomerPlanFile } from './customer-plan-file.js';
import { writeCustomerReport } from './customer-report.js';
import { errorRowNumbers } from '../sheet-run-report.js';
import {
  refuseChangedCustomer,
  refuseExistingCustomer,
  settleCustomerReplay,
} from './customer-write-check.js';

type CustomerOp =
  | {
      kind: 'customer-create';
      key: string;
      idempotent: true;
      idempotencyKey: string;
      entry: CustomerPlanEntry;
      body: CustomerCreate;
    }
  | {
      kind: 'customer-update';
      key: string;
      idempotent: true;
      entry: CustomerPlanEntry;
      customerId: string;
      body: CustomerUpdate;
    };

/** What an operation's journal record keeps. */
interface CustomerOpResult {
  id: string;
  updatedAt: string;
}

/** `writeCheck`: re-read a customer before writing it once the plan is a few seconds old (see WriteCheck). */
export interface ApplyCustomersOptions extends ApplyJobOptions {
  writeCheck?: WriteCheckOptions | undefined;
}

function buildOps(runId: string, plan: CustomerPlan): CustomerOp[] {
  const ops: CustomerOp[] = [];
  for (const entry of plan.entries) {
    if (entry.action === 'create' && entry.create) {
      ops.push({
        kind: 'customer-create',
        key: entry.key,
        idempotent: true,
        idempotencyKey: idempotencyKey(runId, entry.key, entry.create),
        entry,
        body: entry.create,
      });
    } else if (entry.action === 'update' && entry.update && entry.customerId !== undefined) {
      ops.push({
        kind: 'customer-update',
        key: entry.key,
        idempotent: true,
        entry,
        customerId: entry.customerId,
        body: entry.update,
      });
    }
  }
  return ops;
}

/** The customer's phone as results.csv's `key`: the one it is created with, or its live one. */
function keyOf(e: CustomerPlanEntry): string | undefined {
  return e.update?.phone ?? e.create?.phone ?? e.before?.phone;
}

/**
 * Each create is a POST with a deterministic Idempotency-Key (a replay after a crash is answered
 * from the service's memory), each update an absolute PATCH of the changed fields only (safe to
 * resend). The before-state of every updated customer is saved first.
 */
function customerSession(
  ctx: JobContext<CustomerPlanFile, ApplyCustomersOptions>,
): JobSession<CustomerOp, CustomerOpResult, { notWritten: Record<string, string> }> {
  const { run, file, client, options } = ctx;
  const check = new WriteCheck(run.meta.created_at, options.writeCheck, (m) => options.onWarning?.(m));
  // The run's own read of the customers (the plan's, `import … --apply`; the drift check's, `mbulk
  // apply RUN`) is the check's first listing.
  check.seed(takeListing(run));
  const match = file.match ?? DEFAULT_CUSTOMER_MATCH;
  const operations = buildOps(run.id, file.plan);
  // A listing of its own vs one get-one per update.
  check.preferListing(
    Math.ceil(file.liveCustomers / 100),
    operations.filter((o) => o.kind === 'customer-update').length,
  );
  return {
    operations,
    execute: async (op, exec) => {
      if (op.kind === 'customer-create') {
        // Refuse (nothing sent) a create whose phone now belongs to a live customer.
        if (check.due(exec)) await refuseExistingCustomer(client, check, op.entry, match);
        await ctx.saveBefore([{ type: 'customer', id: op.key, before: null }]);
        ctx.countRequest();
        const c = await client.customers.create(op.body, { idempotencyKey: op.idempotencyKey });
        return { id: c.id, updatedAt: c.updated_at };
      }
      // A PATCH whose earlier attempt has no known outcome is re-sent only while the customer is as planned.
      if (exec.previous === 'unknown') {
        const live = await settleCustomerReplay(client, check, op.entry, op.customerId, op.body);
        if (live) return { id: live.id, updatedAt: live.updatedAt };
      }
      // Refuse (nothing sent) a PATCH whose customer changed since planning: not overwritten (and not in the backup).
      if (check.due(exec)) await refuseChangedCustomer(client, check, op.entry, op.customerId);
      const before = op.entry.before;
      await ctx.saveBefore([
        {
          type: 'customer',
          id: op.customerId,
          before: before ? { id: op.customerId, ...before, updated_at: op.entry.expectedUpdatedAt } : null,
        },
      ]);
      ctx.countRequest();
      const c = await client.customers.update(op.customerId, op.body);
      return { id: c.id, updatedAt: c.updated_at };
    },
    changes: (o) => {
      const e = o.op.entry;
      return [
        {
          status: o.status,
          outcome: e.action === 'create' ? 'created' : 'updated',
          rows: [{ sheet: e.sheet, row: e.rowNumber }],
          entityId: o.status === 'done' ? (o.result?.id ?? e.customerId) : e.customerId,
          key: keyOf(e),
        },
      ];
    },
    results: { invalid: file.plan.issues, rows: otherRows(file) },
    // The review page's outcome of each customer: what was not written, by plan key.
    values: (t) => ({ notWritten: notWrittenByKey(t.execution.outcomes, (op) => op.entry.key) }),
  };
}

/** results.csv of the valid rows that write nothing: skipped (`command: skip`) or unchanged. */
function otherRows(file: CustomerPlanFile): DeclaredRow[] {
  const invalid = errorRowNumbers(file.plan.issues);
  return file.plan.entries
    .filter((e) => (e.action === 'skip' || e.action === 'noop') && !invalid.has(e.rowNumber))
    .map((e): DeclaredRow => {
      const key = keyOf(e);
      const row: DeclaredRow = { sheet: e.sheet, row: e.rowNumber, outcome: 'unchanged' };
      if (key !== undefined) row.key = key;
      if (e.action === 'skip')
        return { ...row, outcome: 'skipped', errorCode: 'skip', errorMessage: 'command skip' };
      if (e.customerId !== undefined) row.entityId = e.customerId;
      return row;
    });
}

/** The customers kind: creates and field-level updates matched by id, phone or email. */
export const customerJob = defineJob({
  kind: 'customers',
  planSchema: CustomerPlanFileSchema,
  session: customerSession,
  /**
   * The summary of a customers apply: customers `created` and `updated`, `failed` (failed writes,
   * unknown outcomes and writes the run did not reach), `requests` (write requests this session sent).
   */
  summary: {
    created: { of: ['created'] },
    updated: { of: ['updated'] },
    failed: { of: 'failed' },
    requests: { of: 'requests', cli: 'writeRequests' },
  },
  report: writeCustomerReport,
  drift: checkCustomerDrift,
});

export type CustomerApplySummary = SummaryOf<typeof customerJob>;

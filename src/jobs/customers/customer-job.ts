import { idempotencyKey } from '../../api/idempotency-key.js';
import type { RowFilesSummary } from '../../apply/results-file.js';
import { WriteCheck } from '../../apply/write-check.js';
import {
  DEFAULT_CUSTOMER_MATCH,
  type CustomerPlan,
  type CustomerPlanEntry,
} from '../../plan/customer-plan.js';
import type { CustomerCreate, CustomerUpdate } from '../../schema/index.js';
import type { AbortCause } from '../job-events.js';
import { changeOf } from '../runner/change-outcome.js';
import type {
  ApplyJobOptions,
  FailedRow,
  JobContext,
  JobDefinition,
  JobSession,
} from '../runner/job-definition.js';
import { checkCustomerDrift } from './customer-drift.js';
import { CustomerPlanFileSchema, type CustomerPlanFile } from './customer-plan-file.js';
import { writeCustomerReport } from './customer-report.js';
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

export type ApplyCustomersOptions = Omit<ApplyJobOptions, 'allowPriceJumps'>;

export interface CustomerApplySummary {
  runId: string;
  status: 'completed' | 'interrupted' | 'aborted';
  /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached or rejected the token). */
  abortedBy?: AbortCause;
  created: number;
  updated: number;
  /** Planned writes that failed, whose outcome is unknown, or that the run did not reach. */
  failed: number;
  unknown: number;
  /** Write requests made by this session. */
  requests: number;
  rows: RowFilesSummary;
  /** Failed writes and invalid rows. */
  failedRows: FailedRow[];
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
  ctx: JobContext<CustomerPlanFile>,
): JobSession<CustomerOp, CustomerOpResult, CustomerApplySummary> {
  const { run, file, client, options } = ctx;
  const check = new WriteCheck(run.meta.created_at, options.writeCheck, (m) => options.onWarning?.(m));
  const match = file.match ?? DEFAULT_CUSTOMER_MATCH;
  let created = 0;
  let updated = 0;
  const operations = buildOps(run.id, file.plan);
  // One customer listing vs one get-one per update.
  check.preferListing(
    Math.ceil(file.liveCustomers / 100),
    operations.filter((o) => o.kind === 'customer-update').length,
  );
  return {
    first: { operations },
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
      if (o.status === 'done') {
        if (o.op.kind === 'customer-create') created++;
        else updated++;
      }
      const entityId = o.status === 'done' ? (o.result?.id ?? e.customerId) : e.customerId;
      return [
        changeOf(
          o,
          { sheet: e.sheet, row: e.rowNumber },
          {
            outcome: e.action === 'create' ? 'created' : 'updated',
            entityId,
            key: keyOf(e),
          },
        ),
      ];
    },
    rowResults: (label, rows) => {
      for (const e of file.plan.entries) {
        if (rows.byRow.has(e.rowNumber) || (e.action !== 'skip' && e.action !== 'noop')) continue;
        const key = keyOf(e);
        const base = {
          sheet: label,
          row: e.rowNumber,
          outcome: 'unchanged' as const,
          ...(key !== undefined ? { key } : {}),
        };
        rows.byRow.set(
          e.rowNumber,
          e.action === 'skip'
            ? { ...base, outcome: 'skipped', errorCode: 'skip', errorMessage: 'command skip' }
            : e.customerId !== undefined
              ? { ...base, entityId: e.customerId }
              : base,
        );
      }
    },
    summarize: (t) => ({
      runId: run.id,
      status: t.execution.status,
      ...(t.abortedBy ? { abortedBy: t.abortedBy } : {}),
      created,
      updated,
      failed: t.failed,
      unknown: t.unknown,
      requests: t.requests,
      rows: t.rows as RowFilesSummary,
      failedRows: t.failedRows,
    }),
  };
}

/** The customers kind: creates and field-level updates matched by id, phone or email. */
export const customerJob: JobDefinition<
  CustomerPlanFile,
  CustomerOp,
  CustomerOpResult,
  CustomerApplySummary
> = {
  kind: 'customers',
  planSchema: CustomerPlanFileSchema,
  notRun: 'failure',
  session: customerSession,
  invalidIssues: (file) => file.plan.issues,
  runCounts: (s) => ({ created: s.created, updated: s.updated, failed: s.failed, requests: s.requests }),
  report: writeCustomerReport,
  cliSummary: (s) => ({
    created: s.created,
    updated: s.updated,
    failed: s.failed,
    writeRequests: s.requests,
    failedRows: s.failedRows,
  }),
  drift: checkCustomerDrift,
};

import { dirname } from 'node:path';
import type { MerchantClient } from '../api/merchant-client.js';
import type { RunDirectory } from '../apply/run-directory.js';
import type { WriteCheckOptions } from '../apply/write-check.js';
import type { AbortCause, JobCallbacks } from './job-events.js';
import type { StockPlanFile } from './stock-import.js';

/** An entity a saved plan touches that changed in the live store since planning. */
export interface DriftedEntity {
  type: string;
  id: string;
  label: string;
  reason: string;
}

/** What `mbulk apply RUN` and `mbulk runs resume RUN` need of every kind of run. */
export interface RunKind {
  /** Applies or resumes the run; `ok` false when rows failed or the run did not complete. */
  apply(
    run: RunDirectory,
    options: JobCallbacks & {
      client: MerchantClient;
      concurrency?: number;
      /** `mbulk apply --allow-price-jumps` (products runs; default false). */
      allowPriceJumps?: boolean;
      /** Write-time re-read of products and customers (`--strict-check`). */
      writeCheck?: WriteCheckOptions;
    },
  ): Promise<{
    ok: boolean;
    status: string;
    summary: Record<string, unknown>;
    /** Set when a fatal error stopped the apply (exit code 4: the API could not be reached). */
    abortedBy?: AbortCause | undefined;
  }>;
  /** Entities the plan touches that changed since planning (empty: safe to apply). */
  drift?(run: RunDirectory, client: MerchantClient): Promise<DriftedEntity[]>;
  /**
   * Why planning the input of a started run again would repeat writes (relative changes such as
   * stock deltas), or undefined when it would not: `--replan` refuses a started run then.
   */
  replanRepeats?(run: RunDirectory): string | undefined;
  /** Plans the run's own input again against the live store, as a new run (`mbulk apply --replan`). */
  replan?(
    run: RunDirectory,
    options: JobCallbacks & { client: MerchantClient; target: string },
  ): Promise<{ run: RunDirectory; refusal?: string | undefined }>;
}

type AppliedRun = Awaited<ReturnType<RunKind['apply']>>;

/** A job's apply summary as a RunKind result: ok only when it completed with no failed row or write. */
function applied(
  s: { status: string; abortedBy?: AbortCause | undefined; failed?: number; failedRows?: readonly unknown[] },
  summary: Record<string, unknown>,
): AppliedRun {
  const ok = s.status === 'completed' && (s.failedRows?.length ?? 0) === 0 && (s.failed ?? 0) === 0;
  return { ok, status: s.status, abortedBy: s.abortedBy, summary };
}

/** The run kinds, loaded lazily (a kind's module is only imported when its run is applied). */
export async function runKind(kind: string): Promise<RunKind | undefined> {
  switch (kind) {
    case 'stock': {
      const { applyStockRun } = await import('./stock-import.js');
      const { checkStockDrift } = await import('./stock-drift.js');
      return {
        apply: async (run, options) => {
          const s = await applyStockRun(run, options);
          return applied(s, {
            mode: s.mode,
            updated: s.applied,
            failed: s.failed,
            notRun: s.notRun,
            writeRequests: s.requests,
            failedRows: s.failedRows,
          });
        },
        drift: checkStockDrift,
        replanRepeats: (run) =>
          (run.readPlan() as StockPlanFile).plan.changes.some((c) => c.mode === 'delta')
            ? 'its sheet holds delta quantities'
            : undefined,
        // Plans the run's own copy of the sheet again, with the run's options, as a new run.
        replan: async (run, options) => {
          const { planStockImport } = await import('./stock-import.js');
          const { runInputPath } = await import('./run-input.js');
          const file = run.readPlan() as StockPlanFile;
          const maxChanges = run.meta.options['maxChanges'];
          const planned = await planStockImport({
            ...options,
            file: runInputPath(run, file.input),
            runsRoot: dirname(run.dir),
            read: file.input.sheet ? { sheet: file.input.sheet } : {},
            preserveSales: file.plan.options.preserveSales,
            batchSize: file.batchSize,
            maxChanges: typeof maxChanges === 'string' ? maxChanges : undefined,
            allowEmpty: run.meta.options['allowEmpty'] === true,
          });
          return { run: planned.run, refusal: planned.refusal };
        },
      };
    }
    case 'products': {
      const { applyProductRun, checkProductDrift, replanProductRun } = await import('./product-import.js');
      return {
        apply: async (run, options) => {
          const s = await applyProductRun(run, options);
          return applied(s, {
            created: s.created,
            updated: s.updated,
            hidden: s.hidden,
            deleted: s.deleted,
            failed: s.failed,
            writeRequests: s.requests,
            failedRows: s.failedRows,
          });
        },
        drift: checkProductDrift,
        replan: async (run, options) => {
          const planned = await replanProductRun(run, options);
          return { run: planned.run, refusal: planned.refusal };
        },
      };
    }
    case 'customers': {
      const { applyCustomerRun, checkCustomerDrift } = await import('./customer-import.js');
      return {
        apply: async (run, options) => {
          const s = await applyCustomerRun(run, options);
          return applied(s, {
            created: s.created,
            updated: s.updated,
            failed: s.failed,
            writeRequests: s.requests,
            failedRows: s.failedRows,
          });
        },
        drift: checkCustomerDrift,
      };
    }
    case 'messages': {
      const { applyMessageRun, checkMessageDrift } = await import('./message-send.js');
      return {
        apply: async (run, options) => {
          const s = await applyMessageRun(run, options);
          return applied(s, { sent: s.sent, failed: s.failed, reused: s.reused, failedRows: s.failedRows });
        },
        drift: checkMessageDrift,
      };
    }
    case 'templates': {
      const { applyTemplateRun } = await import('./template-import.js');
      return {
        apply: async (run, options) => {
          const s = await applyTemplateRun(run, options);
          return applied(s, {
            created: s.created,
            failed: s.failed,
            templates: s.templates,
            failedRows: s.failedRows,
          });
        },
      };
    }
    case 'rollback': {
      const { applyRollbackRun } = await import('./rollback-run.js');
      const { checkRollbackDrift } = await import('./rollback-drift.js');
      return {
        apply: async (run, options) => {
          const s = await applyRollbackRun(run, options);
          return applied(s, {
            restored: s.restored,
            failed: s.failed,
            writeRequests: s.requests,
            failures: s.failures,
          });
        },
        drift: checkRollbackDrift,
      };
    }
    default:
      return undefined;
  }
}

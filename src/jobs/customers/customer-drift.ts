import type { MerchantClient } from '../../api/merchant-client.js';
import { readJournal, stateOf, unwritten } from '../../apply/journal.js';
import type { RunDirectory } from '../../apply/run-directory.js';
import { handOverListing } from '../../apply/write-check.js';
import { LiveCustomerIndex } from '../../plan/customer-plan.js';
import type { DriftedEntity } from '../runner/job-definition.js';
import { readPlanFile } from '../runner/plan-file.js';
import { CustomerPlanFileSchema } from './customer-plan-file.js';
import { customerChanges } from './customer-report.js';
import { CUSTOMERS } from './customer-write-check.js';

/**
 * Which planned writes no longer fit the live store (`mbulk apply RUN` refuses then): a customer
 * to update is gone or changed since planning (its `updated_at` moved), or a customer to create
 * now exists (its phone is live). Operations this run did (done, or of unknown outcome) are its
 * own doing, not drift; definite failures are checked again. When nothing drifted, the read is
 * handed to the run's apply as its write-time check's first listing (handOverListing).
 */
export async function checkCustomerDrift(
  run: RunDirectory,
  client: MerchantClient,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<DriftedEntity[]> {
  const file = readPlanFile(run, CustomerPlanFileSchema);
  const journal = readJournal(run.file('journal'));
  const pending = customerChanges(file.plan).filter((e) => unwritten(stateOf(journal, e.key).status));
  if (pending.length === 0) return [];
  const live = new LiveCustomerIndex();
  const startedAt = Date.now();
  const started = performance.now();
  for await (const c of client.customers.list({}, options)) live.add(c);
  const readMs = performance.now() - started;
  const drifted: DriftedEntity[] = [];
  for (const e of pending) {
    if (e.action === 'create' && e.create) {
      const now = live.byPhone.get(e.create.phone);
      if (now) {
        drifted.push({
          type: 'customer',
          id: e.key,
          label: `row ${e.rowNumber} ${e.create.name}`,
          reason: `to be created, but customer ${now.id} (${now.name}) now has phone ${e.create.phone}`,
        });
      }
      continue;
    }
    if (e.customerId === undefined) continue;
    const now = live.byId.get(e.customerId);
    const label = `row ${e.rowNumber} ${e.before?.name ?? e.customerId}`;
    if (!now) {
      drifted.push({ type: 'customer', id: e.customerId, label, reason: 'no longer exists' });
    } else if (now.updatedAt !== e.expectedUpdatedAt) {
      // The planned fields whose live value moved (name, phone, email).
      const liveFields: Record<string, unknown> = { name: now.name, phone: now.phone, email: now.email };
      const shown = (value: unknown): string =>
        value === null || value === undefined ? '(none)' : String(value);
      const fields = e.changes
        .filter((c) => c.field in liveFields && liveFields[c.field] !== c.before)
        .map((c) => ({
          field: c.field,
          planned: shown(c.after),
          live: shown(liveFields[c.field]),
          atPlanning: shown(c.before),
        }));
      drifted.push({
        type: 'customer',
        id: e.customerId,
        label,
        reason: `changed since planning (updated_at ${e.expectedUpdatedAt ?? '?'} → ${now.updatedAt})`,
        ...(fields.length > 0 ? { fields } : {}),
      });
    }
  }
  // The store is as planned: this read is the apply's first listing (`mbulk apply RUN`, a resume).
  if (drifted.length === 0) handOverListing(run, { name: CUSTOMERS, startedAt, readMs, value: live });
  return drifted;
}

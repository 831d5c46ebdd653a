import { NotFoundError } from '../../api/errors.js';
import type { MerchantClient } from '../../api/merchant-client.js';
import { WriteCheckFailedError, WriteDriftError, type WriteCheck } from '../../apply/write-check.js';
import {
  LiveCustomerIndex,
  type CustomerMatchKey,
  type CustomerPlanEntry,
} from '../../plan/customer-plan.js';
import type { Customer } from '../../schema/index.js';

const label = (entry: CustomerPlanEntry, fallback: string): string =>
  `row ${entry.rowNumber} ${entry.before?.name ?? entry.create?.name ?? fallback}`;

/**
 * Before a PATCH: re-reads the customer (`GET /customers/{id}`) and throws WriteDriftError
 * (nothing sent) when its `updated_at` is not the one seen when planning. Returns true when get-one
 * answered 404 (the customer is gone, or the service has no get-one route: see refuseChangedProduct).
 */
export async function refuseChangedCustomer(
  client: MerchantClient,
  entry: CustomerPlanEntry,
  id: string,
): Promise<boolean> {
  let live: Customer;
  try {
    live = await client.customers.get(id);
  } catch (error) {
    if (error instanceof NotFoundError) return true;
    throw new WriteCheckFailedError(`customer ${id}`, error);
  }
  if (entry.expectedUpdatedAt !== undefined && live.updated_at !== entry.expectedUpdatedAt) {
    throw new WriteDriftError(
      `drifted: ${label(entry, id)} (customer ${id}) changed in the store after planning (updated_at ${entry.expectedUpdatedAt} → ${live.updated_at}); not overwritten. Plan again to include the change`,
    );
  }
  return false;
}

/**
 * Before a create: throws WriteDriftError (nothing sent) when a live customer now has its phone (or
 * its email, when the plan matched on email), by a fresh customer listing shared by the run's creates.
 */
export async function refuseExistingCustomer(
  client: MerchantClient,
  check: WriteCheck,
  entry: CustomerPlanEntry,
  match: readonly CustomerMatchKey[],
): Promise<false> {
  let live: LiveCustomerIndex;
  try {
    live = await check.snapshot('customers', async () => {
      const index = new LiveCustomerIndex();
      for await (const c of client.customers.list()) index.add(c);
      return index;
    });
  } catch (error) {
    throw new WriteCheckFailedError('the customers', error);
  }
  const create = entry.create;
  if (!create) return false;
  const byPhone = create.phone ? live.byPhone.get(create.phone) : undefined;
  const email = create.email ? create.email.toLowerCase() : undefined;
  const byEmail = match.includes('email') && email ? live.byEmail.get(email) : undefined;
  const hit = byPhone ?? byEmail;
  if (hit) {
    const key = byPhone ? `phone ${create.phone}` : `email ${create.email ?? ''}`;
    throw new WriteDriftError(
      `drifted: ${label(entry, entry.key)} was planned as a new customer, but customer ${hit.id} (${hit.name}) now has ${key}; not created twice. Plan again to update it instead`,
    );
  }
  return false;
}

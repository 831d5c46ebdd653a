import type { MerchantClient } from '../../api/merchant-client.js';
import {
  readForReplay,
  refuseChanged,
  WriteCheckFailedError,
  WriteDriftError,
  type CheckedEntities,
  type WriteCheck,
} from '../../apply/write-check.js';
import {
  LiveCustomerIndex,
  type CustomerMatchKey,
  type CustomerPlanEntry,
} from '../../plan/customer-plan.js';
import type { Customer } from '../../schema/index.js';

const label = (entry: CustomerPlanEntry, fallback: string): string =>
  `row ${entry.rowNumber} ${entry.before?.name ?? entry.create?.name ?? fallback}`;

/** The write-time check's listing of the customers (WriteCheck.snapshot's name): a LiveCustomerIndex. */
export const CUSTOMERS = 'customers';

/** The shared customer listing, fresh per WriteCheck.snapshot. */
function customers(client: MerchantClient, check: WriteCheck): Promise<LiveCustomerIndex> {
  return check.listing(CUSTOMERS, 'the customers', async () => {
    const index = new LiveCustomerIndex();
    for await (const c of client.customers.list()) index.add(c);
    return index;
  });
}

/** Customers as the write-time check reads them (one algorithm: apply/write-check.ts). */
const checkedCustomers = (client: MerchantClient, check: WriteCheck): CheckedEntities => ({
  noun: 'customer',
  getRoute: `GET ${client.paths.customerGet}`,
  getUpdatedAt: async (id) => (await client.customers.get(id)).updated_at,
  listedUpdatedAt: async (id) => (await customers(client, check)).byId.get(id)?.updatedAt,
  missingIsDrift: false,
});

/**
 * Before a PATCH: throws WriteDriftError (nothing sent) when the customer's `updated_at` is not the
 * one seen when planning. Checked against the shared customer listing (default), or by re-reading
 * the customer (`GET /customers/{id}`: strict, or too many customers to list often); see
 * refuseChanged.
 */
export async function refuseChangedCustomer(
  client: MerchantClient,
  check: WriteCheck,
  entry: CustomerPlanEntry,
  id: string,
): Promise<void> {
  if (entry.expectedUpdatedAt === undefined) return;
  await refuseChanged(check, checkedCustomers(client, check), id, entry.expectedUpdatedAt, label(entry, id));
}

/**
 * Before a create: throws WriteDriftError (nothing sent) when a live customer now has its phone (or
 * its email, when the plan matched on email), by the shared fresh customer listing.
 */
export async function refuseExistingCustomer(
  client: MerchantClient,
  check: WriteCheck,
  entry: CustomerPlanEntry,
  match: readonly CustomerMatchKey[],
): Promise<void> {
  const live = await customers(client, check);
  const create = entry.create;
  if (!create) return;
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
}

/**
 * Before re-sending a customer PATCH whose earlier attempt has no known outcome (a resume, or
 * `runs resume --reconcile`): re-sent only when the customer is still as planned. Returns
 * `undefined` (send it), the live customer when it already holds every planned field (the earlier
 * attempt landed: nothing to send), or throws WriteDriftError (nothing sent, row drifted).
 */
export async function settleCustomerReplay(
  client: MerchantClient,
  check: WriteCheck,
  entry: CustomerPlanEntry,
  id: string,
  body: Record<string, unknown>,
): Promise<{ id: string; updatedAt: string } | undefined> {
  let live: { id: string; updatedAt: string; fields: Record<string, unknown> } | undefined;
  try {
    live = await readForReplay(
      check,
      `GET ${client.paths.customerGet}`,
      async () => replayView(await client.customers.get(id)),
      async () => {
        const c = (await customers(client, check)).byId.get(id);
        return (
          c && { id: c.id, updatedAt: c.updatedAt, fields: { name: c.name, phone: c.phone, email: c.email } }
        );
      },
    );
  } catch (error) {
    if (error instanceof WriteCheckFailedError) throw error;
    throw new WriteCheckFailedError(`customer ${id}`, error);
  }
  if (live === undefined) {
    throw new WriteDriftError(
      `drifted: ${label(entry, id)} (customer ${id}) is no longer in the store; not sent again`,
    );
  }
  if (entry.expectedUpdatedAt === undefined || live.updatedAt === entry.expectedUpdatedAt) return undefined;
  const fields = live.fields;
  if (Object.entries(body).every(([k, v]) => v === undefined || fields[k] === v)) return live;
  throw new WriteDriftError(
    `drifted: ${label(entry, id)} (customer ${id}) changed in the store after planning (updated_at ${entry.expectedUpdatedAt} → ${live.updatedAt}) and does not hold the planned change; whether the earlier attempt reached the store is unknown, so it was not sent again. Plan again to include the change`,
  );
}

/** A live customer as a replay compares it: the fields a customer PATCH writes. */
function replayView(c: Customer): { id: string; updatedAt: string; fields: Record<string, unknown> } {
  return { id: c.id, updatedAt: c.updated_at, fields: { name: c.name, phone: c.phone, email: c.email } };
}

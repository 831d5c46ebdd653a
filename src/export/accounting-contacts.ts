import type { Order } from '../schema/order.js';
import { UsageError } from '../errors/usage-error.js';

/**
 * Who an invoice is addressed to (Xero `*ContactName`, QuickBooks `Customer`). Both programs match
 * an imported contact by its name, so two customers sharing a name would become one contact:
 *
 * - `distinct` (default): the customer's name; a second customer with a name already given to
 *   another (in this export or, in a feed, in any earlier run) gets the name plus a short suffix
 *   from their phone (`Amirul (…1025)`), or their customer id when that is taken too. The first
 *   customer keeps the plain name, so contacts already in the books stay theirs.
 * - `name`: the name alone (customers sharing a name share a contact).
 * - `name-email`: `Name (email)` (`Name (phone)` without an email).
 * - `single`: every invoice to one contact (`single:"Online customers"`).
 */
export type ContactMode =
  { mode: 'distinct' } | { mode: 'name' } | { mode: 'name-email' } | { mode: 'single'; name: string };

/** `--contact name|name-email|single:"NAME"` (absent: distinct). */
export function parseContactMode(value: string | undefined): ContactMode {
  if (value === undefined) return { mode: 'distinct' };
  const v = value.trim();
  if (v === 'name' || v === 'name-email') return { mode: v };
  const single = /^single:(.*)$/s.exec(v);
  const name = single?.[1]
    ?.trim()
    .replace(/^"(.*)"$/s, '$1')
    .trim();
  if (single && name) return { mode: 'single', name };
  throw new UsageError(
    `--contact must be name, name-email or single:"NAME" (got "${value}"); leave it out to keep customers who share a name apart`,
    'contact',
  );
}

const key = (name: string): string => name.trim().toLowerCase();

/** Gives contacts out, remembering who has which (`given`: customer key → contact; saved by a feed). */
export class ContactBook {
  private readonly owner = new Map<string, string>();

  constructor(
    private readonly mode: ContactMode,
    private readonly given: Record<string, string> = {},
  ) {
    for (const [customer, contact] of Object.entries(given)) this.owner.set(key(contact), customer);
  }

  contactFor(customer: Order['customer']): string {
    const base = customer.name.trim() || customer.phone || customer.email || 'Customer';
    if (this.mode.mode === 'single') return this.mode.name;
    if (this.mode.mode === 'name') return base;
    if (this.mode.mode === 'name-email') {
      const detail = customer.email ?? (customer.phone || null);
      return detail && base !== detail ? `${base} (${detail})` : base;
    }
    const who = customer.id || customer.phone || customer.email || base;
    const known = this.given[who];
    if (known !== undefined) return known;
    const candidates = [
      base,
      ...(customer.phone ? [`${base} (…${customer.phone.slice(-4)})`] : []),
      `${base} (${who})`,
    ];
    const free = candidates.find((c) => (this.owner.get(key(c)) ?? who) === who) ?? `${base} (${who})`;
    this.owner.set(key(free), who);
    this.given[who] = free;
    return free;
  }
}

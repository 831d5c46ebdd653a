// A data table of the sandbox generator (src/sandbox/generator.ts): values, no generation logic.
// Orders: payment methods, remarks, discounts, status combinations and the distributions the order
// generator draws from.
import type { FulfillmentStatus, OrderStatus, PaymentStatus } from '../../schema/index.js';

export const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org', 'mail.example.com'];
export const PAYMENT_METHODS = ['fpx', 'card', 'tng_ewallet', 'duitnow_qr', 'cash', 'bank_transfer', 'cod'];
export const PAYMENT_METHOD_WEIGHTS = [30, 25, 15, 10, 10, 6, 4];
export const REMARKS = [
  'Less ice please',
  'Please call when you arrive',
  'Gift, no price tag please',
  'Leave at the guardhouse',
  'Can deliver after 6pm?',
  'Extra napkins, thanks!',
  'Size exchange if too small?',
];
export const INTERNAL_NOTES = [
  'VIP, add a free sticker',
  'Paid via bank transfer, verified',
  'Repeat customer',
  'Check stock before packing',
];
export const DISCOUNTS = [
  { name: 'WELCOME10', type: 'percentage', percent: 10 },
  { name: 'RAYA15', type: 'percentage', percent: 15 },
  { name: 'Loyalty reward', type: 'fixed', amount: 500 },
  { name: 'FREESHIP', type: 'voucher', amount: 800 },
] as const;

/**
 * Realistic order state combinations; the first orders cycle through all of them so that every
 * order_status, payment_status and fulfillment_status value appears once there are >= 12 orders.
 */
export const STATE_COMBOS: readonly (readonly [OrderStatus, PaymentStatus, FulfillmentStatus])[] = [
  ['completed', 'paid', 'fulfilled'],
  ['draft', 'pending', 'unfulfilled'],
  ['pending', 'pending', 'unfulfilled'],
  ['pending', 'confirming', 'unfulfilled'],
  ['confirmed', 'paid', 'ready'],
  ['confirmed', 'partial', 'unfulfilled'],
  ['confirmed', 'paid', 'in_transit'],
  ['confirmed', 'paid', 'out_for_delivery'],
  ['confirmed', 'paid', 'partially_fulfilled'],
  ['completed', 'refunded', 'fulfilled'],
  ['cancelled', 'voided', 'unfulfilled'],
  ['cancelled', 'refunded', 'unfulfilled'],
];
export const STATE_WEIGHTS = [50, 2, 6, 3, 5, 2, 5, 3, 2, 2, 4, 2];

/** Distributions, hoisted so the hot loops allocate nothing for them. */
export const IMAGE_COUNTS = [0, 1, 2, 3, 4];
export const IMAGE_COUNT_WEIGHTS = [10, 30, 25, 20, 15];
export const LINE_COUNTS = [1, 2, 3, 4];
export const LINE_COUNT_WEIGHTS = [50, 30, 14, 6];
export const LINE_QUANTITIES = [1, 2, 3, 5];
export const LINE_QUANTITY_WEIGHTS = [70, 20, 7, 3];
export const SERVICE_KINDS = ['delivery', 'pickup', 'none'] as const;
export const SERVICE_KIND_WEIGHTS = [50, 20, 30];
export const CHANNELS = ['whatsapp', 'instagram', 'facebook', 'web'];
export const CHANNEL_WEIGHTS = [50, 20, 15, 15];

/** Delivery couriers. */
export const COURIERS = ['Lalamove', 'Grab Express', 'J&T Express', 'Pos Laju', 'Ninja Van'];

import { z } from 'zod';
import { Address, DateTime } from './common.js';
import { Customer } from './customer.js';

export const ORDER_STATUSES = ['draft', 'pending', 'confirmed', 'completed', 'cancelled'] as const;
export const PAYMENT_STATUSES = ['pending', 'confirming', 'partial', 'paid', 'refunded', 'voided'] as const;
export const FULFILLMENT_STATUSES = [
  'unfulfilled',
  'ready',
  'in_transit',
  'out_for_delivery',
  'fulfilled',
  'partially_fulfilled',
] as const;
export const OrderStatus = z.enum(ORDER_STATUSES);
export const PaymentStatus = z.enum(PAYMENT_STATUSES);
export const FulfillmentStatus = z.enum(FULFILLMENT_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatus>;
export type PaymentStatus = z.infer<typeof PaymentStatus>;
export type FulfillmentStatus = z.infer<typeof FulfillmentStatus>;

export const LineItemOption = z.object({
  question_id: z.string(),
  question_text: z.string(),
  question_type: z.string(),
  answers: z.array(z.string()),
  prices: z.array(z.number()),
  quantities: z.array(z.number()),
  option_ids: z.array(z.string()),
  text: z.string(),
  image_urls: z.array(z.string()),
});
export type LineItemOption = z.infer<typeof LineItemOption>;

export const OrderLineItem = z.object({
  id: z.string(),
  object: z.literal('order_line_item').optional(),
  product_id: z.string(),
  variant_id: z.string().nullable(),
  name: z.string(),
  sku: z.string().nullable(),
  quantity: z.number(),
  quantity_float: z.number(),
  unit: z.string(),
  unit_value: z.number(),
  price: z.number(),
  total_amount: z.number(),
  options: z.array(LineItemOption),
  image_urls: z.array(z.string()),
});
export type OrderLineItem = z.infer<typeof OrderLineItem>;

export const OrderAnswer = z.object({
  id: z.string(),
  object: z.literal('order_answer').optional(),
  question_id: z.string(),
  question_text: z.string(),
  question_type: z.string(),
  answers: z.array(z.string()),
  prices: z.array(z.number()),
  option_ids: z.array(z.string()),
  image_urls: z.array(z.string()),
});
export type OrderAnswer = z.infer<typeof OrderAnswer>;

export const OrderDiscount = z.object({
  id: z.string(),
  name: z.string(),
  amount: z.number(),
  type: z.string(),
});
export type OrderDiscount = z.infer<typeof OrderDiscount>;

export const OrderService = z.object({
  title: z.string().nullable(),
  name: z.string().nullable(),
  price: z.number(),
  distance: z.number().nullable(),
  distance_unit: z.string().nullable(),
  location: Address.nullable(),
});
export type OrderService = z.infer<typeof OrderService>;

export const OrderSchedule = z.object({
  date: DateTime.nullable(),
  time: DateTime.nullable(),
  time_end: DateTime.nullable(),
  timezone: z.string().nullable(),
});
export type OrderSchedule = z.infer<typeof OrderSchedule>;

export const OrderAttribution = z.object({
  channel: z.string().nullable(),
  ctwa_clid: z.string().nullable(),
  source_id: z.string().nullable(),
  source_type: z.string().nullable(),
  source_url: z.string().nullable(),
  headline: z.string().nullable(),
  conversation_id: z.string().nullable(),
  referred_at: DateTime.nullable(),
});
export type OrderAttribution = z.infer<typeof OrderAttribution>;

export const Order = z.object({
  id: z.string(),
  object: z.literal('order'),
  number: z.string().regex(/^[0-9]+$/, 'must be the raw counter as a string'),
  name: z.string(),
  store: z.object({ id: z.string(), name: z.string(), alias: z.string() }),
  order_status: OrderStatus,
  payment_status: PaymentStatus,
  payment_method: z.string(),
  fulfillment_status: FulfillmentStatus,
  remark: z.string(),
  internal_note: z.string(),
  attribution: OrderAttribution.nullable(),
  customer: Customer,
  line_items: z.array(OrderLineItem),
  answers: z.array(OrderAnswer),
  discounts: z.array(OrderDiscount),
  service: OrderService.nullable(),
  schedule: OrderSchedule.nullable(),
  items_quantity: z.number(),
  items_amount: z.number(),
  answers_amount: z.number(),
  discounts_amount: z.number(),
  service_amount: z.number(),
  service_charge_amount: z.number(),
  tip_amount: z.number(),
  adjustment_amount: z.number(),
  total_before_tax: z.number(),
  tax_amount: z.number(),
  total_amount: z.number(),
  currency: z.string(),
  created_at: DateTime,
  updated_at: DateTime,
});
export type Order = z.infer<typeof Order>;

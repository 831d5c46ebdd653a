// A data table of the sandbox generator (src/sandbox/generator.ts): values, no generation logic.
// The store's WhatsApp message templates: one of each status, both categories, two languages.
import type { MessageTemplate } from '../../schema/index.js';

/** One sample template; the generator fills the id (`tpl_<n>`, in this order), parameters and defaults. */
export interface SampleTemplate {
  name: string;
  status: MessageTemplate['status'];
  category: MessageTemplate['category'];
  body: string;
  /** Fields that differ from the defaults (language `en`, no header, footer or buttons). */
  extra?: Partial<MessageTemplate>;
}

export const SAMPLE_TEMPLATES: readonly SampleTemplate[] = [
  {
    name: 'order_update',
    status: 'APPROVED',
    category: 'UTILITY',
    body: 'Hi {{name}}, your order #{{order_number}} has been updated. Reply to this message if you have any questions.',
    extra: { header: 'Order update', footer: 'Kopi & Kain' },
  },
  {
    name: 'payment_reminder',
    status: 'APPROVED',
    category: 'UTILITY',
    body: 'Hi {{name}}, a friendly reminder that order #{{order_number}} ({{amount}}) is awaiting payment.',
    extra: { buttons: [{ type: 'QUICK_REPLY', text: 'I have paid' }] },
  },
  {
    name: 'ready_for_pickup',
    status: 'APPROVED',
    category: 'UTILITY',
    body: 'Hi {{name}}, order #{{order_number}} is ready for pickup at our {{outlet}} outlet.',
    extra: { language: 'ms' },
  },
  {
    name: 'weekend_promo',
    status: 'PENDING',
    category: 'MARKETING',
    body: 'Hi {{name}}! This weekend only: 15% off all coffee beans with code {{code}}.',
    extra: {
      footer: 'Reply STOP to opt out',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Shop now' },
        { type: 'QUICK_REPLY', text: 'Stop promotions' },
      ],
    },
  },
  {
    name: 'flash_sale',
    status: 'REJECTED',
    category: 'MARKETING',
    body: '{{discount}} off everything, today only {{link}}',
    extra: { rejected_reason: 'INVALID_FORMAT: the body cannot start or end with a variable.' },
  },
  {
    name: 'restock_alert',
    status: 'PAUSED',
    category: 'MARKETING',
    body: 'Good news {{name}}, {{product}} is back in stock!',
    extra: { header_image_url: 'https://kopikain.example.com/img/restock.png' },
  },
];

// A data table of the sandbox generator (src/sandbox/generator.ts): values, no generation logic.
// Catalog: product families. Prices are in MYR sen (2 decimals); the generator converts them per currency.
import type { ProductOption, ProductType, ProductUnit } from '../../schema/index.js';

export interface AxisValue {
  label: string;
  code: string;
  /** Added to the family's base price (sen). */
  delta?: number;
}
export interface Axis {
  name: string;
  values: readonly AxisValue[];
}
export interface OptionTemplate {
  type: ProductOption['type'];
  text: string;
  required: boolean;
  /** Probability that a product of the family carries this option. */
  p: number;
  /** Choices of an OPTION_SELECTION, with price (sen). */
  choices?: readonly { text: string; price: number }[];
  /** Possible answers to free-text / date options on orders. */
  answers?: readonly string[];
}
export interface Family {
  code: string;
  category: string;
  type: ProductType;
  unit: ProductUnit;
  unitValue: number;
  unitEnabled: boolean;
  names: readonly string[];
  price: readonly [number, number];
  weight: readonly [number, number];
  axes: readonly Axis[];
  options: readonly OptionTemplate[];
  tags: readonly string[];
  descriptions: readonly string[];
  inventory: boolean;
}

export const COLOURS: Axis = {
  name: 'Colour',
  values: [
    { label: 'Black', code: 'BLK' },
    { label: 'White', code: 'WHT' },
    { label: 'Navy', code: 'NVY' },
    { label: 'Olive', code: 'OLV' },
    { label: 'Sand', code: 'SND' },
    { label: 'Heather Grey', code: 'GRY' },
  ],
};
export const SIZES: Axis = {
  name: 'Size',
  values: [
    { label: 'S', code: 'S' },
    { label: 'M', code: 'M' },
    { label: 'L', code: 'L' },
    { label: 'XL', code: 'XL' },
    { label: 'XXL', code: 'XXL', delta: 500 },
  ],
};
export const GIFT_WRAP: OptionTemplate = {
  type: 'OPTION_SELECTION',
  text: 'Gift wrapping',
  required: false,
  p: 0.3,
  choices: [
    { text: 'No wrapping', price: 0 },
    { text: 'Kraft paper', price: 300 },
    { text: 'Batik cloth wrap', price: 900 },
  ],
};
export const GIFT_NOTE: OptionTemplate = {
  type: 'OPTION_TEXT',
  text: 'Gift note',
  required: false,
  p: 0.2,
  answers: ['Happy birthday!', 'Selamat Hari Raya', 'Congrats on the new job', 'With love, M.'],
};

export const FAMILIES: readonly Family[] = [
  {
    code: 'TEE',
    category: 'apparel',
    type: 'PHYSICAL',
    unit: 'PCS',
    unitValue: 1,
    unitEnabled: false,
    names: [
      'Classic Cotton Tee',
      'Heavyweight Pocket Tee',
      'Oversized Logo Tee',
      'Organic Cotton Tee',
      'Vintage Wash Tee',
      'Batik Print Tee',
      'Kopi O Kosong Slogan Tee',
      'Linen Blend Tee',
      'Long Sleeve Tee',
    ],
    price: [4900, 8900],
    weight: [160, 260],
    axes: [COLOURS, SIZES],
    options: [GIFT_WRAP, GIFT_NOTE],
    tags: ['apparel', 'cotton', 'unisex', 'bestseller', 'new'],
    descriptions: [
      'Soft **combed cotton**, regular fit.\n\n- Pre-shrunk\n- Machine wash cold',
      'A heavyweight tee that keeps its shape.\n\n- 240 gsm\n- Dropped shoulders',
      'Printed in Kuala Lumpur with *water-based* inks.',
    ],
    inventory: true,
  },
  {
    code: 'HOD',
    category: 'apparel',
    type: 'PHYSICAL',
    unit: 'PCS',
    unitValue: 1,
    unitEnabled: false,
    names: ['Zip Hoodie', 'Pullover Hoodie', 'Crewneck Sweatshirt', 'Fleece Hoodie', 'Coach Jacket'],
    price: [12900, 18900],
    weight: [450, 700],
    axes: [COLOURS, SIZES],
    options: [GIFT_WRAP],
    tags: ['apparel', 'outerwear', 'unisex'],
    descriptions: [
      'Brushed fleece inside, **cosy** outside.\n\n- Kangaroo pocket\n- Ribbed cuffs',
      'Light enough for air-conditioned offices.',
    ],
    inventory: true,
  },
  {
    code: 'ACC',
    category: 'accessories',
    type: 'PHYSICAL',
    unit: 'PCS',
    unitValue: 1,
    unitEnabled: false,
    names: ['Canvas Tote Bag', 'Dad Cap', 'Bucket Hat', 'Knit Beanie', 'Sling Bag', 'Enamel Pin Set'],
    price: [2900, 6900],
    weight: [50, 400],
    axes: [COLOURS],
    options: [GIFT_WRAP, GIFT_NOTE],
    tags: ['accessories', 'gift', 'unisex'],
    descriptions: ['Everyday carry, built to last.', 'Heavy **12 oz canvas**, reinforced handles.'],
    inventory: true,
  },
  {
    code: 'BEAN',
    category: 'coffee-beans',
    type: 'PHYSICAL',
    unit: 'G',
    unitValue: 250,
    unitEnabled: true,
    names: [
      'Sumatra Mandheling Beans',
      'Ethiopia Yirgacheffe Beans',
      'Colombia Huila Beans',
      'Sabah Liberica Beans',
      'Brazil Cerrado Beans',
      'Guatemala Antigua Beans',
      'House Espresso Blend',
      'Kenya AA Beans',
      'Decaf Swiss Water Beans',
    ],
    price: [3800, 6800],
    weight: [250, 260],
    axes: [
      {
        name: 'Weight',
        values: [
          { label: '250g', code: '250G' },
          { label: '500g', code: '500G', delta: 3000 },
          { label: '1kg', code: '1KG', delta: 7000 },
        ],
      },
      {
        name: 'Grind',
        values: [
          { label: 'Whole bean', code: 'WB' },
          { label: 'Espresso', code: 'ESP' },
          { label: 'Filter', code: 'FLT' },
          { label: 'French press', code: 'FP' },
        ],
      },
    ],
    options: [],
    tags: ['coffee', 'beans', 'single-origin', 'roasted-weekly'],
    descriptions: [
      'Roasted every Monday. Notes of **dark chocolate** and brown sugar.',
      'Bright and floral, *light roast*.\n\n- Best for pour-over\n- Rest 7 days after roast',
    ],
    inventory: true,
  },
  {
    code: 'DRK',
    category: 'drinks',
    type: 'PHYSICAL',
    unit: 'QTY',
    unitValue: 1,
    unitEnabled: false,
    names: [
      'Iced Kopi Latte',
      'Flat White',
      'Spanish Latte',
      'Matcha Latte',
      'Teh Tarik',
      'Cold Brew',
      'Mocha',
      'Gula Melaka Latte',
      'Hojicha Latte',
      'Americano',
    ],
    price: [900, 1600],
    weight: [0, 0],
    axes: [
      {
        name: 'Temperature',
        values: [
          { label: 'Hot', code: 'HOT' },
          { label: 'Iced', code: 'ICE', delta: 100 },
        ],
      },
      {
        name: 'Size',
        values: [
          { label: 'Regular', code: 'REG' },
          { label: 'Large', code: 'LRG', delta: 200 },
          { label: '1L bottle', code: '1L', delta: 2400 },
        ],
      },
    ],
    options: [
      {
        type: 'OPTION_SELECTION',
        text: 'Milk',
        required: true,
        p: 0.9,
        choices: [
          { text: 'Fresh milk', price: 0 },
          { text: 'Oat milk', price: 200 },
          { text: 'Almond milk', price: 200 },
          { text: 'Soy milk', price: 100 },
        ],
      },
      {
        type: 'OPTION_SELECTION',
        text: 'Sugar level',
        required: false,
        p: 0.7,
        choices: [
          { text: 'Normal', price: 0 },
          { text: 'Less sweet', price: 0 },
          { text: 'No sugar', price: 0 },
        ],
      },
      {
        type: 'OPTION_TEXT',
        text: 'Name on cup',
        required: false,
        p: 0.3,
        answers: ['Aisyah', 'Wei Ming', 'Priya', 'Jason', 'Kak Long'],
      },
    ],
    tags: ['drinks', 'coffee', 'cafe'],
    descriptions: ['Made to order with our **house blend**.', 'Double shot, *velvety* milk.'],
    inventory: false,
  },
  {
    code: 'FOOD',
    category: 'food',
    type: 'PHYSICAL',
    unit: 'PCS',
    unitValue: 1,
    unitEnabled: false,
    names: [
      'Butter Croissant',
      'Kaya Butter Toast',
      'Banana Walnut Cake',
      'Burnt Cheesecake Slice',
      'Nasi Lemak Bungkus',
      'Chicken Curry Puff',
      'Pandan Chiffon Cake',
      'Cinnamon Roll',
    ],
    price: [450, 1600],
    weight: [80, 300],
    axes: [
      {
        name: 'Portion',
        values: [
          { label: 'Single', code: 'SGL' },
          { label: 'Box of 4', code: 'BX4', delta: 2400 },
          { label: 'Box of 6', code: 'BX6', delta: 3900 },
        ],
      },
      {
        name: 'Packaging',
        values: [
          { label: 'Standard', code: 'STD' },
          { label: 'Gift box', code: 'GFT', delta: 500 },
        ],
      },
    ],
    options: [
      {
        type: 'OPTION_SELECTION',
        text: 'Add-on',
        required: false,
        p: 0.4,
        choices: [
          { text: 'Extra kaya', price: 150 },
          { text: 'Fried egg', price: 200 },
          { text: 'Sambal on the side', price: 100 },
        ],
      },
    ],
    tags: ['food', 'bakery', 'halal', 'cafe'],
    descriptions: ['Baked fresh every morning.', 'Made with **real butter** and pandan from our garden.'],
    inventory: true,
  },
  {
    code: 'HOME',
    category: 'brewing-gear',
    type: 'PHYSICAL',
    unit: 'PCS',
    unitValue: 1,
    unitEnabled: false,
    names: [
      'Enamel Camp Mug',
      'Ceramic Pour-over Dripper',
      'Glass Cold Brew Bottle',
      'Insulated Tumbler',
      'Stoneware Cup Set',
      'Hand Coffee Grinder',
      'Gooseneck Kettle',
    ],
    price: [3500, 15900],
    weight: [200, 1200],
    axes: [
      {
        name: 'Colour',
        values: [
          { label: 'Cream', code: 'CRM' },
          { label: 'Black', code: 'BLK' },
          { label: 'Sage', code: 'SGE' },
          { label: 'Terracotta', code: 'TRC' },
        ],
      },
      {
        name: 'Capacity',
        values: [
          { label: '350ml', code: '350' },
          { label: '500ml', code: '500', delta: 800 },
        ],
      },
    ],
    options: [GIFT_WRAP],
    tags: ['brewing', 'gear', 'gift', 'home'],
    descriptions: ['Dishwasher safe.', 'Handmade in Perak; each piece **varies slightly**.'],
    inventory: true,
  },
  {
    code: 'GIFT',
    category: 'gift-cards',
    type: 'DIGITAL',
    unit: 'QTY',
    unitValue: 1,
    unitEnabled: false,
    names: ['Gift Card', 'E-Voucher', 'Coffee Subscription Voucher'],
    price: [0, 0],
    weight: [0, 0],
    axes: [
      {
        name: 'Value',
        values: [
          { label: 'RM30', code: '30', delta: 3000 },
          { label: 'RM50', code: '50', delta: 5000 },
          { label: 'RM100', code: '100', delta: 10000 },
          { label: 'RM150', code: '150', delta: 15000 },
          { label: 'RM200', code: '200', delta: 20000 },
          { label: 'RM300', code: '300', delta: 30000 },
        ],
      },
    ],
    options: [GIFT_NOTE],
    tags: ['gift', 'digital'],
    descriptions: ['Delivered by WhatsApp within minutes. Valid for **12 months**.'],
    inventory: false,
  },
  {
    code: 'WKS',
    category: 'workshops',
    type: 'BOOKING',
    unit: 'PERSON',
    unitValue: 1,
    unitEnabled: true,
    names: ['Latte Art Workshop', 'Home Brewing Class', 'Cupping Session', 'Batik Painting Class'],
    price: [8000, 22000],
    weight: [0, 0],
    axes: [
      {
        name: 'Session',
        values: [
          { label: 'Morning', code: 'AM' },
          { label: 'Afternoon', code: 'PM' },
          { label: 'Evening', code: 'EVE', delta: 1000 },
        ],
      },
      {
        name: 'Seats',
        values: [
          { label: '1 pax', code: '1P' },
          { label: '2 pax', code: '2P', delta: 8000 },
        ],
      },
    ],
    options: [
      {
        type: 'OPTION_DATE',
        text: 'Preferred date',
        required: true,
        p: 0.8,
        answers: ['2026-11-14', '2026-11-21', '2026-11-28', '2026-12-05'],
      },
      {
        type: 'OPTION_TEXT',
        text: 'Dietary notes',
        required: false,
        p: 0.5,
        answers: ['Vegetarian', 'No nuts', 'Lactose intolerant'],
      },
    ],
    tags: ['workshop', 'experience'],
    descriptions: ['Small groups of up to **8**. All equipment provided.'],
    inventory: true,
  },
];
export const FAMILY_WEIGHTS = [22, 10, 10, 14, 16, 10, 10, 3, 5];

/** Categories by slug; `cat_<slug>` is the id. */
export const CROSS_CATEGORIES = ['new-arrivals', 'best-sellers', 'sale', 'raya-specials'];

/** Number of variants per product: mean ≈ 3.05. */
export const VARIANT_COUNTS = [0, 2, 3, 4, 5, 6];
export const VARIANT_COUNT_WEIGHTS = [15, 20, 25, 20, 10, 10];

/** Possible answers to the free-text / date options of every family, by option text (order lines). */
export const FAMILY_OPTION_ANSWERS = new Map<string, readonly string[]>(
  FAMILIES.flatMap((f) =>
    f.options.filter((o) => o.answers).map((o) => [o.text, o.answers as readonly string[]] as const),
  ),
);

import type {
  Address,
  Customer,
  FulfillmentStatus,
  InventoryItem,
  MessageTemplate,
  Order,
  OrderAnswer,
  OrderAttribution,
  OrderDiscount,
  OrderLineItem,
  OrderSchedule,
  OrderService,
  OrderStatus,
  PaymentStatus,
  Product,
  ProductOption,
  ProductType,
  ProductUnit,
  Store,
  StoreSnapshot,
  Variant,
} from '../schema/index.js';
import { currencyDecimals, templateVariables } from '../schema/index.js';
import { Prng } from './prng.js';

/**
 * Deterministic synthetic stores for the sandbox (`--generate products=N,customers=N,orders=N`),
 * tests and benchmarks.
 *
 * - Same options, same seed: byte-identical `JSON.stringify` output. Nothing reads the clock; every
 *   timestamp is laid out backwards from `now` (default 2026-11-01T00:00:00Z).
 * - Each part draws from its own PRNG fork, so changing the number of orders does not change the
 *   products or customers.
 * - Products, customers and orders come out in creation order (`created_at` never decreases), which
 *   is the order the sandbox pages them in.
 * - Ids are `<kind>_<base36 counter>` (`prod_00000001`, `var_…`, `opt_…`, `inv_…`, `cus_…`, `ord_…`,
 *   `li_…`, `tpl_…`, `cat_<slug>`): unique per snapshot, not random.
 * - Images are on the sandbox's own storage path, `http://sandbox.local/__sandbox/images/<id>.png`
 *   (`sandbox.local` rather than a `.invalid` host: `.invalid` means "unfetchable" to the sandbox).
 * - Nothing is zod-parsed here (far too slow at 100k products); the unit tests validate samples.
 *
 * Order money (integers in the smallest currency unit), for every generated order:
 *
 *     line.total_amount     = line.price * line.quantity     (line.price = unit price incl. option prices)
 *     items_amount          = Σ line.total_amount
 *     items_quantity        = Σ line.quantity
 *     answers_amount        = Σ answers[].prices
 *     discounts_amount      = Σ discounts[].amount            (never more than items + answers)
 *     service_amount        = service?.price ?? 0
 *     service_charge_amount = round((items + answers - discounts) * store.service_charge.rate / 100)
 *                             + store.service_charge.amount, on orders without a service (dine-in), else 0
 *     total_before_tax      = items_amount + answers_amount - discounts_amount + service_amount
 *                             + service_charge_amount + tip_amount + adjustment_amount
 *     tax exclusive (store.tax.inclusive = false):
 *         tax_amount   = round(total_before_tax * percent / 100)
 *         total_amount = total_before_tax + tax_amount
 *     tax inclusive (store.tax.inclusive = true): prices already contain the tax, so
 *         tax_amount   = round(total_before_tax * percent / (100 + percent))   (the included part)
 *         total_amount = total_before_tax
 */
export interface GenerateStoreOptions {
  /** Number of products (default 20). About 15% have no variants; the average is ~3 variants. */
  products?: number;
  /** Number of customers (default 30). */
  customers?: number;
  /** Number of orders (default 50). */
  orders?: number;
  /** PRNG seed (default 1). */
  seed?: number;
  /** Store currency (default `MYR`); money is scaled to its ISO 4217 decimals. */
  currency?: string;
  /** Store country, ISO 3166 alpha-2 (default `MY`). */
  country?: string;
  /** Store timezone (default: the country's main zone, else `UTC`). */
  timezone?: string;
  /** The moment the store is generated "at"; all timestamps are before it (default 2026-11-01T00:00:00Z). */
  now?: string;
}

const DEFAULT_NOW = '2026-11-01T00:00:00.000Z';
const DAY = 86_400_000;
/** Where generated product images live: the sandbox serves `/__sandbox/images/<id>.png`. */
export const SANDBOX_IMAGE_BASE = 'http://sandbox.local/__sandbox/images/';

// ---------------------------------------------------------------------------------------------
// Catalog: product families. Prices are in MYR sen (2 decimals) and converted per currency.

interface AxisValue {
  label: string;
  code: string;
  /** Added to the family's base price (sen). */
  delta?: number;
}
interface Axis {
  name: string;
  values: readonly AxisValue[];
}
interface OptionTemplate {
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
interface Family {
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

const COLOURS: Axis = {
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
const SIZES: Axis = {
  name: 'Size',
  values: [
    { label: 'S', code: 'S' },
    { label: 'M', code: 'M' },
    { label: 'L', code: 'L' },
    { label: 'XL', code: 'XL' },
    { label: 'XXL', code: 'XXL', delta: 500 },
  ],
};
const GIFT_WRAP: OptionTemplate = {
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
const GIFT_NOTE: OptionTemplate = {
  type: 'OPTION_TEXT',
  text: 'Gift note',
  required: false,
  p: 0.2,
  answers: ['Happy birthday!', 'Selamat Hari Raya', 'Congrats on the new job', 'With love, M.'],
};

const FAMILIES: readonly Family[] = [
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
const FAMILY_WEIGHTS = [22, 10, 10, 14, 16, 10, 10, 3, 5];

/** Categories by slug; `cat_<slug>` is the id. */
const CROSS_CATEGORIES = ['new-arrivals', 'best-sellers', 'sale', 'raya-specials'];

/** Number of variants per product: mean ≈ 3.05. */
const VARIANT_COUNTS = [0, 2, 3, 4, 5, 6];
const VARIANT_COUNT_WEIGHTS = [15, 20, 25, 20, 10, 10];

// ---------------------------------------------------------------------------------------------
// People and places.

interface City {
  city: string;
  state: string | null;
  zip: string;
  lat: number;
  lng: number;
  districts: readonly string[];
  streets: readonly string[];
}

interface CountryInfo {
  timezone: string;
  tax: Store['tax'];
  serviceCharge: Store['service_charge'];
  name: (r: Prng) => string;
  phone: (r: Prng) => string;
  cities: readonly City[];
}

function digits(r: Prng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(r.int(0, 9));
  return s;
}

/** A "given family" name picker. */
function westernName(given: readonly string[], family: readonly string[]): (r: Prng) => string {
  return (r) => `${r.pick(given)} ${r.pick(family)}`;
}

const MALAY_MALE = ['Muhammad Hafiz', 'Ahmad Faiz', 'Amirul', 'Hakim', 'Syafiq', 'Azlan'];
const MALAY_FEMALE = ['Nur Aisyah', 'Siti Nurhaliza', 'Farah', 'Nadia', 'Aina', "Nur'ain"];
const MALAY_FATHER = ['Abdullah', 'Ibrahim', 'Rahman', 'Ismail', 'Osman', 'Yusof'];
const CHINESE_FAMILY = ['Tan', 'Lim', 'Ng', 'Wong', 'Chong', 'Lee', 'Ong', 'Teh'];
const CHINESE_GIVEN = ['Wei Ming', 'Mei Ling', 'Kar Hoe', 'Li Ying', 'Jia Hui', 'Zhi Hao', 'Chloé'];
const INDIAN_MALE = ['Arjun', 'Ganesh', 'Suresh', 'Vikram'];
const INDIAN_FEMALE = ['Priya', 'Kavitha', 'Deepa', 'Anitha'];
const INDIAN_FATHER = ['Subramaniam', 'Raj', 'Krishnan', 'Muthu', 'Pillai'];

/** Malaysian naming: Malay (bin/binti), Chinese (family name first), Indian (a/l, a/p). */
function malaysianName(r: Prng): string {
  const kind = r.weighted(MY_GROUPS, MY_GROUP_WEIGHTS);
  if (kind === 'chinese') return `${r.pick(CHINESE_FAMILY)} ${r.pick(CHINESE_GIVEN)}`;
  const female = r.chance(0.5);
  if (kind === 'indian') {
    return `${r.pick(female ? INDIAN_FEMALE : INDIAN_MALE)} ${female ? 'a/p' : 'a/l'} ${r.pick(INDIAN_FATHER)}`;
  }
  if (r.chance(0.4)) return r.pick(female ? MALAY_FEMALE : MALAY_MALE);
  return `${r.pick(female ? MALAY_FEMALE : MALAY_MALE)} ${female ? 'binti' : 'bin'} ${r.pick(MALAY_FATHER)}`;
}

const COUNTRIES: Readonly<Record<string, CountryInfo>> = {
  MY: {
    timezone: 'Asia/Kuala_Lumpur',
    tax: { inclusive: false, percent: 6 },
    serviceCharge: { name: 'Service charge', rate: 10, amount: 0 },
    name: malaysianName,
    phone: (r) =>
      r.chance(0.15)
        ? `6011${r.pick(['1', '2', '3', '5'])}${digits(r, 7)}`
        : `601${r.pick(['2', '6', '9'])}${digits(r, 7)}`,
    cities: [
      {
        city: 'Kuala Lumpur',
        state: 'Wilayah Persekutuan',
        zip: '59100',
        lat: 3.13,
        lng: 101.67,
        districts: ['Bangsar', 'Mont Kiara', 'Taman Tun Dr Ismail', 'Cheras'],
        streets: ['Jalan Telawi 3', 'Jalan Kiara 3', 'Lorong Rahim Kajai 14', 'Jalan Cerdas'],
      },
      {
        city: 'Petaling Jaya',
        state: 'Selangor',
        zip: '47300',
        lat: 3.12,
        lng: 101.62,
        districts: ['SS2', 'Damansara Utama', 'Seksyen 17'],
        streets: ['Jalan SS 2/24', 'Jalan SS 21/37', 'Jalan 17/45'],
      },
      {
        city: 'Shah Alam',
        state: 'Selangor',
        zip: '40150',
        lat: 3.07,
        lng: 101.52,
        districts: ['Seksyen 13', 'Setia Alam', 'Kota Kemuning'],
        streets: ['Persiaran Perbandaran', 'Jalan Setia Prima', 'Jalan Anggerik Vanilla'],
      },
      {
        city: 'George Town',
        state: 'Pulau Pinang',
        zip: '10200',
        lat: 5.41,
        lng: 100.33,
        districts: ['Pulau Tikus', 'Tanjung Tokong'],
        streets: ['Lebuh Armenian', 'Jalan Burma', 'Persiaran Gurney'],
      },
      {
        city: 'Johor Bahru',
        state: 'Johor',
        zip: '81200',
        lat: 1.49,
        lng: 103.74,
        districts: ['Taman Molek', 'Mount Austin', 'Skudai'],
        streets: ['Jalan Molek 1/29', 'Jalan Austin Heights 8', 'Jalan Dhoby'],
      },
      {
        city: 'Ipoh',
        state: 'Perak',
        zip: '30250',
        lat: 4.6,
        lng: 101.08,
        districts: ['Ipoh Garden', 'Greentown'],
        streets: ['Jalan Sultan Yussuf', 'Jalan Kampar'],
      },
      {
        city: 'Kota Kinabalu',
        state: 'Sabah',
        zip: '88300',
        lat: 5.98,
        lng: 116.07,
        districts: ['Damai', 'Likas'],
        streets: ['Jalan Gaya', 'Jalan Damai'],
      },
      {
        city: 'Kuching',
        state: 'Sarawak',
        zip: '93350',
        lat: 1.55,
        lng: 110.36,
        districts: ['Tabuan Jaya', 'Padungan'],
        streets: ['Jalan Padungan', 'Jalan Song'],
      },
    ],
  },
  SG: {
    timezone: 'Asia/Singapore',
    tax: { inclusive: false, percent: 9 },
    serviceCharge: { name: 'Service charge', rate: 10, amount: 0 },
    name: (r) =>
      r.chance(0.6)
        ? `${r.pick(['Tan', 'Lee', 'Goh', 'Koh', 'Lim'])} ${r.pick(['Jun Jie', 'Hui Min', 'Shu Fen', 'Wei Lun'])}`
        : westernName(['Rachel', 'Marcus', 'Ravi', 'Siti', 'Daniel'], ['Tan', 'Pillai', 'Rahim', 'Ong'])(r),
    phone: (r) => `65${r.pick(['96', '97', '98', '81', '82', '83'])}${digits(r, 6)}`,
    cities: [
      {
        city: 'Singapore',
        state: null,
        zip: '238859',
        lat: 1.3,
        lng: 103.83,
        districts: ['Orchard', 'Tiong Bahru'],
        streets: ['Orchard Road', 'Tiong Bahru Road', 'Eng Hoon Street'],
      },
      {
        city: 'Singapore',
        state: null,
        zip: '529510',
        lat: 1.35,
        lng: 103.94,
        districts: ['Tampines', 'Bedok'],
        streets: ['Tampines Ave 4', 'Bedok North Road'],
      },
    ],
  },
  ID: {
    timezone: 'Asia/Jakarta',
    tax: { inclusive: true, percent: 11 },
    serviceCharge: null,
    name: (r) =>
      r.chance(0.4)
        ? r.pick(['Putri', 'Budi', 'Dewi', 'Agus', 'Rina', 'Eko'])
        : westernName(
            ['Putri', 'Budi', 'Dewi', 'Agus', 'Rina'],
            ['Santoso', 'Wijaya', 'Pratama', 'Lestari'],
          )(r),
    phone: (r) => `6281${r.pick(['1', '2', '3'])}${digits(r, 8)}`,
    cities: [
      {
        city: 'Jakarta Selatan',
        state: 'DKI Jakarta',
        zip: '12190',
        lat: -6.23,
        lng: 106.81,
        districts: ['Kebayoran Baru', 'Kemang'],
        streets: ['Jl. Senopati', 'Jl. Kemang Raya'],
      },
      {
        city: 'Bandung',
        state: 'Jawa Barat',
        zip: '40111',
        lat: -6.91,
        lng: 107.61,
        districts: ['Sumur Bandung'],
        streets: ['Jl. Braga', 'Jl. Riau'],
      },
      {
        city: 'Denpasar',
        state: 'Bali',
        zip: '80361',
        lat: -8.7,
        lng: 115.17,
        districts: ['Kuta', 'Seminyak'],
        streets: ['Jl. Sunset Road', 'Jl. Kayu Aya'],
      },
    ],
  },
  US: {
    timezone: 'America/New_York',
    tax: { inclusive: false, percent: 8.875 },
    serviceCharge: null,
    name: westernName(
      ['Emily', 'Michael', 'Sarah', 'David', 'Olivia', 'James'],
      ['Johnson', "O'Brien", 'Garcia', 'Nguyen', 'Smith'],
    ),
    phone: (r) =>
      `1${r.pick(['212', '415', '617', '312', '206', '512'])}${r.int(2, 9)}${digits(r, 2)}${digits(r, 4)}`,
    cities: [
      {
        city: 'New York',
        state: 'NY',
        zip: '10013',
        lat: 40.72,
        lng: -74.0,
        districts: ['SoHo', 'Tribeca'],
        streets: ['Broadway', 'Spring St'],
      },
      {
        city: 'San Francisco',
        state: 'CA',
        zip: '94110',
        lat: 37.75,
        lng: -122.41,
        districts: ['Mission District'],
        streets: ['Valencia St', 'Mission St'],
      },
      {
        city: 'Austin',
        state: 'TX',
        zip: '78704',
        lat: 30.24,
        lng: -97.77,
        districts: ['South Congress'],
        streets: ['South Congress Ave', 'Elizabeth St'],
      },
    ],
  },
  GB: {
    timezone: 'Europe/London',
    tax: { inclusive: true, percent: 20 },
    serviceCharge: { name: 'Optional service', rate: 12, amount: 0 },
    name: westernName(
      ['Oliver', 'Amelia', 'Harry', 'Isla', 'Priya', 'George', 'Zoë'],
      ['Smith', 'Jones', 'Taylor', 'Patel', 'Brown'],
    ),
    phone: (r) => `4478${r.pick(['4', '5', '6', '7', '9'])}${digits(r, 7)}`,
    cities: [
      {
        city: 'London',
        state: null,
        zip: 'E1 6AN',
        lat: 51.52,
        lng: -0.07,
        districts: ['Shoreditch', 'Spitalfields'],
        streets: ['Brick Lane', 'Commercial Street'],
      },
      {
        city: 'Manchester',
        state: null,
        zip: 'M4 1HN',
        lat: 53.48,
        lng: -2.23,
        districts: ['Northern Quarter'],
        streets: ['Oldham Street', 'Thomas Street'],
      },
    ],
  },
  AU: {
    timezone: 'Australia/Sydney',
    tax: { inclusive: true, percent: 10 },
    serviceCharge: null,
    name: westernName(
      ['Jack', 'Charlotte', 'Liam', 'Mia', 'Noah'],
      ['Wilson', 'Martin', 'Thompson', 'White', 'Chen'],
    ),
    phone: (r) => `614${r.pick(['0', '1', '3'])}${digits(r, 7)}`,
    cities: [
      {
        city: 'Sydney',
        state: 'NSW',
        zip: '2010',
        lat: -33.88,
        lng: 151.21,
        districts: ['Surry Hills', 'Darlinghurst'],
        streets: ['Crown St', 'Bourke St'],
      },
      {
        city: 'Melbourne',
        state: 'VIC',
        zip: '3065',
        lat: -37.8,
        lng: 144.98,
        districts: ['Fitzroy', 'Collingwood'],
        streets: ['Brunswick St', 'Smith St'],
      },
    ],
  },
  PH: {
    timezone: 'Asia/Manila',
    tax: { inclusive: true, percent: 12 },
    serviceCharge: null,
    name: westernName(
      ['Maria', 'Jose', 'Angelica', 'Mark', 'Kristine'],
      ['Santos', 'Reyes', 'Cruz', 'Bautista', 'Dela Cruz'],
    ),
    phone: (r) => `639${r.pick(['17', '18', '27', '15', '98'])}${digits(r, 7)}`,
    cities: [
      {
        city: 'Makati',
        state: 'Metro Manila',
        zip: '1226',
        lat: 14.55,
        lng: 121.02,
        districts: ['Poblacion', 'Legazpi Village'],
        streets: ['Ayala Avenue', 'Jupiter Street'],
      },
      {
        city: 'Cebu City',
        state: 'Cebu',
        zip: '6000',
        lat: 10.31,
        lng: 123.89,
        districts: ['Lahug'],
        streets: ['Osmeña Blvd', 'Gorordo Avenue'],
      },
    ],
  },
};
const MY = COUNTRIES.MY as CountryInfo;
/** Where customers come from, besides the store's own country (which gets the largest share). */
const CUSTOMER_COUNTRIES = ['MY', 'SG', 'ID', 'US', 'GB', 'AU', 'PH'];

/** Approximate value of one MYR in a few currencies, so that generated prices look plausible. */
const MYR_RATE: Readonly<Record<string, number>> = {
  MYR: 1,
  SGD: 0.3,
  USD: 0.22,
  EUR: 0.2,
  GBP: 0.17,
  AUD: 0.33,
  JPY: 33,
  KRW: 300,
  IDR: 3500,
  VND: 5500,
  THB: 7.7,
  PHP: 13,
  KWD: 0.07,
  BHD: 0.085,
};

const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org', 'mail.example.com'];
const PAYMENT_METHODS = ['fpx', 'card', 'tng_ewallet', 'duitnow_qr', 'cash', 'bank_transfer', 'cod'];
const PAYMENT_METHOD_WEIGHTS = [30, 25, 15, 10, 10, 6, 4];
const REMARKS = [
  'Less ice please',
  'Please call when you arrive',
  'Gift, no price tag please',
  'Leave at the guardhouse',
  'Can deliver after 6pm?',
  'Extra napkins, thanks!',
  'Size exchange if too small?',
];
const INTERNAL_NOTES = [
  'VIP, add a free sticker',
  'Paid via bank transfer, verified',
  'Repeat customer',
  'Check stock before packing',
];
const DISCOUNTS = [
  { name: 'WELCOME10', type: 'percentage', percent: 10 },
  { name: 'RAYA15', type: 'percentage', percent: 15 },
  { name: 'Loyalty reward', type: 'fixed', amount: 500 },
  { name: 'FREESHIP', type: 'voucher', amount: 800 },
] as const;

/**
 * Realistic order state combinations; the first orders cycle through all of them so that every
 * order_status, payment_status and fulfillment_status value appears once there are >= 12 orders.
 */
const STATE_COMBOS: readonly (readonly [OrderStatus, PaymentStatus, FulfillmentStatus])[] = [
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
const STATE_WEIGHTS = [50, 2, 6, 3, 5, 2, 5, 3, 2, 2, 4, 2];

/** Distributions, hoisted so the hot loops allocate nothing for them. */
const MY_GROUPS = ['malay', 'chinese', 'indian'] as const;
const MY_GROUP_WEIGHTS = [55, 30, 15];
const IMAGE_COUNTS = [0, 1, 2, 3, 4];
const IMAGE_COUNT_WEIGHTS = [10, 30, 25, 20, 15];
const LINE_COUNTS = [1, 2, 3, 4];
const LINE_COUNT_WEIGHTS = [50, 30, 14, 6];
const LINE_QUANTITIES = [1, 2, 3, 5];
const LINE_QUANTITY_WEIGHTS = [70, 20, 7, 3];
const SERVICE_KINDS = ['delivery', 'pickup', 'none'] as const;
const SERVICE_KIND_WEIGHTS = [50, 20, 30];
const CHANNELS = ['whatsapp', 'instagram', 'facebook', 'web'];
const CHANNEL_WEIGHTS = [50, 20, 15, 15];

// ---------------------------------------------------------------------------------------------
// Small helpers.

function id36(prefix: string, n: number): string {
  return `${prefix}_${n.toString(36).padStart(8, '0')}`;
}

const dayCache = new Map<number, string>();
const PAD2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/** `Date#toISOString`, but much faster (the date part is cached per day); `ms` must be >= 0. */
function iso(ms: number): string {
  const t = Math.floor(ms);
  const day = Math.floor(t / DAY);
  let date = dayCache.get(day);
  if (date === undefined) {
    date = new Date(day * DAY).toISOString().slice(0, 11);
    dayCache.set(day, date);
  }
  let rest = t - day * DAY;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const sec = rest % 60;
  rest = (rest - sec) / 60;
  const min = rest % 60;
  const hour = (rest - min) / 60;
  return `${date}${PAD2[hour] as string}:${PAD2[min] as string}:${PAD2[sec] as string}.${PAD3[milli] as string}Z`;
}

function slugWords(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9 ]/g, '')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '.');
}

/** Converts MYR sen into the store currency's minor units. */
class Money {
  private readonly factor: number;
  constructor(currency: string) {
    const decimals = currencyDecimals(currency);
    this.factor = (MYR_RATE[currency.toUpperCase()] ?? 1) * 10 ** (decimals - 2);
  }
  /** An exact conversion, rounded to a whole minor unit (at least 1 when the input is positive). */
  of(sen: number): number {
    if (sen === 0) return 0;
    return Math.max(1, Math.round(sen * this.factor));
  }
  /** A shelf price: rounded to "nice" values (…90 / …00). */
  price(sen: number): number {
    const m = this.of(sen);
    if (m >= 1000) return Math.round(m / 100) * 100 - 10;
    if (m >= 100) return Math.round(m / 10) * 10;
    return m;
  }
}

// ---------------------------------------------------------------------------------------------
// The generator.

interface Counters {
  product: number;
  variant: number;
  option: number;
  choice: number;
  inventory: number;
  image: number;
}

/** Builds a whole deterministic store snapshot. See the module comment for the guarantees. */
export function generateStore(opts: GenerateStoreOptions = {}): StoreSnapshot {
  const seed = opts.seed ?? 1;
  const root = new Prng(seed);
  const country = (opts.country ?? 'MY').toUpperCase();
  const currency = (opts.currency ?? 'MYR').toUpperCase();
  const info = COUNTRIES[country];
  const nowMs = Date.parse(opts.now ?? DEFAULT_NOW);
  if (Number.isNaN(nowMs)) throw new RangeError(`generateStore: invalid now ${String(opts.now)}`);
  const money = new Money(currency);

  const store = makeStore(
    root.fork('store'),
    seed,
    country,
    currency,
    opts.timezone ?? info?.timezone ?? 'UTC',
    money,
  );
  const products = makeProducts(root.fork('products'), count(opts.products, 20), nowMs, money);
  const customers = makeCustomers(root.fork('customers'), count(opts.customers, 30), country, nowMs);
  const orders = makeOrders(
    root.fork('orders'),
    count(opts.orders, 50),
    store,
    products,
    customers,
    nowMs,
    money,
  );
  const templates = makeTemplates();
  return { format: 'merchant-bulk/snapshot', version: 1, me: store, products, customers, orders, templates };
}

function count(n: number | undefined, fallback: number): number {
  const v = n ?? fallback;
  if (!Number.isSafeInteger(v) || v < 0)
    throw new RangeError(`generateStore: counts must be integers >= 0, got ${v}`);
  return v;
}

function makeStore(
  r: Prng,
  seed: number,
  country: string,
  currency: string,
  timezone: string,
  money: Money,
): Store {
  const info = COUNTRIES[country];
  const city = info ? r.pick(info.cities) : undefined;
  const sc = info?.serviceCharge ?? null;
  return {
    id: `store_${(seed >>> 0).toString(36).padStart(6, '0')}`,
    object: 'store',
    name: 'Kopi & Kain',
    alias: 'kopi-kain',
    phone: info ? info.phone(r) : '',
    email: 'hello@kopikain.example.com',
    country,
    currency,
    timezone,
    address: city
      ? {
          address1: `${r.int(1, 88)}, ${r.pick(city.streets)}`,
          address2: null,
          district: r.pick(city.districts),
          city: city.city,
          state: city.state,
          zip: city.zip,
          country,
          latitude: city.lat,
          longitude: city.lng,
        }
      : null,
    tax: info ? { ...info.tax } : { inclusive: false, percent: 0 },
    service_charge: sc ? { name: sc.name, rate: sc.rate, amount: money.of(sc.amount) } : null,
  };
}

// ---- products ----

function makeProducts(r: Prng, n: number, nowMs: number, money: Money): Product[] {
  const products: Product[] = new Array<Product>(n);
  const c: Counters = { product: 0, variant: 0, option: 0, choice: 0, inventory: 0, image: 0 };
  // Catalog built over the second year before `now`, in creation order.
  const start = nowMs - 730 * DAY;
  const step = n > 0 ? (365 * DAY) / n : 0;
  for (let i = 0; i < n; i++) {
    const created = Math.floor(start + i * step + r.next() * step);
    const updated = r.chance(0.4) ? created + r.int(1, 300) * DAY + r.int(0, 86_399) * 1000 : created;
    products[i] = makeProduct(r, c, created, Math.min(updated, nowMs - DAY), money);
  }
  return products;
}

function makeProduct(r: Prng, c: Counters, createdMs: number, updatedMs: number, money: Money): Product {
  const index = ++c.product;
  const id = id36('prod', index);
  const family = r.weighted(FAMILIES, FAMILY_WEIGHTS);
  const name = r.pick(family.names);
  // About 8% of skus are all digits with leading zeros ("000123"), the rest `<FAMILY>-<base36>`.
  const sku = r.chance(0.08)
    ? String(index).padStart(6, '0')
    : `${family.code}-${index.toString(36).toUpperCase().padStart(5, '0')}`;
  const created = iso(createdMs);
  const updated = iso(updatedMs);
  const base =
    family.price[1] > 0 ? money.price(r.int(family.price[0] / 100, family.price[1] / 100) * 100) : 0;
  const costEnabled = r.chance(0.6);
  const inventoryEnabled = family.inventory && r.chance(0.9);
  const weight = r.int(family.weight[0], family.weight[1]);

  // Variants: a random subset of the family's axis combinations, kept in storefront order.
  const chosen = chooseCombos(r, family.axes, r.weighted(VARIANT_COUNTS, VARIANT_COUNT_WEIGHTS));
  const variants: Variant[] = new Array<Variant>(chosen.length);
  let minPrice = Number.POSITIVE_INFINITY;
  let allSoldOut = true;
  for (let v = 0; v < chosen.length; v++) {
    const combo = chosen[v] as Combo;
    const variantId = id36('var', ++c.variant);
    const price = family.price[1] > 0 ? base + money.of(combo.delta) : money.of(combo.delta);
    const originalPrice = r.chance(0.15) ? price + money.price(r.int(5, 30) * 100) : null;
    const cost = costEnabled ? Math.round(price * 0.4) : null;
    const vSku = `${sku}-${combo.codes}`;
    const vName = combo.label;
    const quantity = stockLevel(r);
    if (quantity > 0) allSoldOut = false;
    if (price < minPrice) minPrice = price;
    variants[v] = {
      id: variantId,
      object: 'variant',
      product_id: id,
      name: vName,
      sku: vSku,
      description: null,
      price,
      original_price: originalPrice,
      cost,
      weight,
      inventory: {
        item_id: id36('inv', ++c.inventory),
        object: 'inventory_item',
        item_type: 'variant',
        item_name: `${name} - ${vName}`,
        product_id: id,
        variant_id: variantId,
        sku: vSku,
        quantity,
        price,
        original_price: originalPrice,
        cost,
        cost_enabled: costEnabled,
        updated_at: updated,
      },
    };
  }

  const price = variants.length > 0 ? minPrice : base || money.price(5000);
  const originalPrice = r.chance(0.2) ? price + money.price(r.int(5, 40) * 100) : 0;
  const cost = costEnabled ? Math.round(price * 0.4) : null;
  let inventory: InventoryItem | null = null;
  if (variants.length === 0) {
    const quantity = stockLevel(r);
    allSoldOut = quantity <= 0;
    inventory = {
      item_id: id36('inv', ++c.inventory),
      object: 'inventory_item',
      item_type: 'product',
      item_name: name,
      product_id: id,
      variant_id: null,
      sku,
      quantity,
      price,
      original_price: originalPrice,
      cost,
      cost_enabled: costEnabled,
      updated_at: updated,
    };
  }

  const options: ProductOption[] = [];
  for (const t of family.options) {
    if (!r.chance(t.p)) continue;
    options.push(makeOption(t, c, money));
  }

  const imageCount = r.weighted(IMAGE_COUNTS, IMAGE_COUNT_WEIGHTS);
  const images: string[] = new Array<string>(imageCount);
  for (let k = 0; k < imageCount; k++) images[k] = `${SANDBOX_IMAGE_BASE}${id36('img', ++c.image)}.png`;

  const categoryIds: string[] = [];
  if (!r.chance(0.05)) {
    categoryIds.push(`cat_${family.category}`);
    if (r.chance(0.25)) categoryIds.push(`cat_${r.pick(CROSS_CATEGORIES)}`);
  }

  return {
    id,
    object: 'product',
    reference_id: r.chance(0.85) ? `ERP-${String(index).padStart(7, '0')}` : null,
    name,
    description: r.pick(family.descriptions),
    sku,
    status: r.chance(0.9) ? 'VISIBLE' : 'HIDDEN',
    type: family.type,
    price,
    original_price: originalPrice,
    cost_enabled: costEnabled,
    cost,
    unit_enabled: family.unitEnabled,
    unit: family.unit,
    unit_value: family.unitValue,
    weight,
    tax_override: r.chance(0.05),
    tax_rate: 0,
    tags: r.sample(family.tags, r.int(0, 3)),
    links: r.chance(0.1) ? [`https://kopikain.example.com/p/${sku.toLowerCase()}`] : [],
    category_ids: categoryIds,
    daily_limit: family.type === 'BOOKING' ? 8 : 0,
    cart_limit: family.type === 'BOOKING' ? 4 : 0,
    cart_minimum: 0,
    inventory_enabled: inventoryEnabled,
    soldout: inventoryEnabled && allSoldOut,
    inventory,
    variants,
    options,
    images,
    created_at: created,
    updated_at: updated,
  };
}

function stockLevel(r: Prng): number {
  if (r.chance(0.1)) return 0;
  return r.chance(0.7) ? r.int(1, 60) : r.int(61, 500);
}

interface Combo {
  index: number;
  label: string;
  codes: string;
  delta: number;
}

const comboCache = new Map<readonly Axis[], readonly Combo[]>();

/** Every combination of the axes' values, in axis order ("Black / M", "BLK-M", summed price delta). */
function axisCombos(axes: readonly Axis[]): readonly Combo[] {
  const cached = comboCache.get(axes);
  if (cached) return cached;
  let combos: { labels: string[]; codes: string[]; delta: number }[] = [{ labels: [], codes: [], delta: 0 }];
  for (const axis of axes) {
    const next: typeof combos = [];
    for (const c of combos) {
      for (const v of axis.values) {
        next.push({
          labels: [...c.labels, v.label],
          codes: [...c.codes, v.code],
          delta: c.delta + (v.delta ?? 0),
        });
      }
    }
    combos = next;
  }
  const result = combos.map((c, index) => ({
    index,
    label: c.labels.join(' / '),
    codes: c.codes.join('-'),
    delta: c.delta,
  }));
  comboCache.set(axes, result);
  return result;
}

/**
 * `k` variants laid out the way shops do: a grid of some colours × a run of consecutive sizes (so
 * "Black / M, Black / L, White / M, White / L"), falling back to a random subset when `k` does not
 * factor into the axes. Storefront order follows the axes.
 */
function chooseCombos(r: Prng, axes: readonly Axis[], k: number): Combo[] {
  const all = axisCombos(axes);
  if (k <= 0) return [];
  if (k >= all.length) return all.slice();
  const [first, second] = axes;
  if (axes.length === 2 && first && second) {
    const na = first.values.length;
    const nb = second.values.length;
    const shapes: [number, number][] = [];
    for (let a = 1; a <= na; a++) if (k % a === 0 && k / a <= nb) shapes.push([a, k / a]);
    if (shapes.length > 0) {
      // Prefer square-ish grids (2 colours × 2 sizes over 1 × 4).
      const [a, b] = r.weighted(
        shapes,
        shapes.map(([x, y]) => Math.min(x, y) ** 2),
      );
      const rows = r
        .sample(
          Array.from({ length: na }, (_, i) => i),
          a,
        )
        .sort((x, y) => x - y);
      const start = r.int(0, nb - b);
      const out: Combo[] = [];
      for (const i of rows) for (let j = start; j < start + b; j++) out.push(all[i * nb + j] as Combo);
      return out;
    }
  }
  return r.sample(all, k).sort((x, y) => x.index - y.index);
}

function makeOption(t: OptionTemplate, c: Counters, money: Money): ProductOption {
  const id = id36('opt', ++c.option);
  const option: ProductOption = {
    id,
    object: 'product_option',
    type: t.type,
    text: t.text,
    required: t.required,
  };
  if (t.type === 'OPTION_SELECTION' && t.choices) {
    option.settings = {
      options: t.choices.map((ch) => ({
        text: ch.text,
        id: id36('optv', ++c.choice),
        price: money.of(ch.price),
        quantity: 0,
      })),
      min: t.required ? 1 : 0,
      max: 1,
      enableQuantity: false,
    };
  }
  return option;
}

// ---- customers ----

function makeCustomers(r: Prng, n: number, storeCountry: string, nowMs: number): Customer[] {
  const customers: Customer[] = new Array<Customer>(n);
  const start = nowMs - 730 * DAY;
  const step = n > 0 ? (365 * DAY) / n : 0;
  const home = COUNTRIES[storeCountry] ? storeCountry : 'MY';
  for (let i = 0; i < n; i++) {
    const created = Math.floor(start + i * step + r.next() * step);
    customers[i] = makeCustomer(r, i + 1, home, created, nowMs);
  }
  return customers;
}

function makeCustomer(r: Prng, index: number, home: string, createdMs: number, nowMs: number): Customer {
  const country = r.chance(0.7) ? home : r.pick(CUSTOMER_COUNTRIES);
  const info = COUNTRIES[country] as CountryInfo;
  const name = info.name(r);
  const updated = r.chance(0.3) ? Math.min(createdMs + r.int(1, 400) * DAY, nowMs - DAY) : createdMs;
  return {
    id: id36('cus', index),
    object: 'customer',
    name,
    email: r.chance(0.12) ? null : `${slugWords(name)}${index}@${r.pick(EMAIL_DOMAINS)}`,
    phone: info.phone(r),
    address: r.chance(0.12) ? null : makeAddress(r, country, info),
    created_at: iso(createdMs),
    updated_at: iso(Math.max(updated, createdMs)),
  };
}

function makeAddress(r: Prng, country: string, info: CountryInfo): Address {
  const city = r.pick(info.cities);
  const located = r.chance(0.6);
  return {
    address1: `${r.int(1, 250)}, ${r.pick(city.streets)}`,
    address2: r.chance(0.35) ? `Unit ${r.int(1, 30)}-${r.int(1, 12)}` : null,
    district: r.chance(0.7) ? r.pick(city.districts) : null,
    city: city.city,
    state: city.state,
    zip: city.zip,
    country,
    latitude: located ? Math.round((city.lat + r.float(-0.05, 0.05)) * 1e5) / 1e5 : null,
    longitude: located ? Math.round((city.lng + r.float(-0.05, 0.05)) * 1e5) / 1e5 : null,
  };
}

// ---- orders ----

function copyCustomer(c: Customer): Customer {
  return { ...c, address: c.address ? { ...c.address } : null };
}

function makeOrders(
  r: Prng,
  n: number,
  store: Store,
  products: readonly Product[],
  customers: readonly Customer[],
  nowMs: number,
  money: Money,
): Order[] {
  const orders: Order[] = new Array<Order>(n);
  // Orders span the last year before `now`, after every product and customer was created.
  const start = nowMs - 365 * DAY;
  const step = n > 0 ? (365 * DAY - 7 * DAY) / n : 0;
  const storeRef = { id: store.id, name: store.name, alias: store.alias };
  let lineCounter = 0;
  let extraCounter = 0;
  for (let i = 0; i < n; i++) {
    const createdMs = Math.floor(start + i * step + r.next() * step);
    const combo =
      i < STATE_COMBOS.length
        ? (STATE_COMBOS[i] as (typeof STATE_COMBOS)[number])
        : r.weighted(STATE_COMBOS, STATE_WEIGHTS);
    const [orderStatus, paymentStatus, fulfillmentStatus] = combo;
    const customer =
      customers.length > 0
        ? copyCustomer(r.pick(customers))
        : makeCustomer(r, 1_000_000 + i, store.country in COUNTRIES ? store.country : 'MY', createdMs, nowMs);

    // Line items.
    const lineCount = products.length === 0 ? 0 : r.weighted(LINE_COUNTS, LINE_COUNT_WEIGHTS);
    const lines: OrderLineItem[] = new Array<OrderLineItem>(lineCount);
    let itemsAmount = 0;
    let itemsQuantity = 0;
    for (let l = 0; l < lineCount; l++) {
      // Distinct products per order (a few retries; tiny catalogs may still repeat).
      let product = r.pick(products);
      for (let t = 0; t < 3 && lines.some((x) => x !== undefined && x.product_id === product.id); t++) {
        product = r.pick(products);
      }
      const line = makeLine(r, ++lineCounter, product);
      lines[l] = line;
      itemsAmount += line.total_amount;
      itemsQuantity += line.quantity;
    }

    // Order-level answers (only QUESTION_TEXT appears in the spec).
    const answers: OrderAnswer[] = [];
    let answersAmount = 0;
    if (r.chance(0.15)) {
      answers.push({
        id: id36('ans', ++extraCounter),
        object: 'order_answer',
        question_id: 'q_delivery_notes',
        question_text: 'Delivery instructions',
        question_type: 'QUESTION_TEXT',
        answers: [r.pick(REMARKS)],
        prices: [0],
        option_ids: [],
        image_urls: [],
      });
    }
    if (r.chance(0.08)) {
      const price = money.of(300);
      answersAmount += price;
      answers.push({
        id: id36('ans', ++extraCounter),
        object: 'order_answer',
        question_id: 'q_greeting_card',
        question_text: 'Add a greeting card? (+RM3)',
        question_type: 'QUESTION_TEXT',
        answers: ['Yes'],
        prices: [price],
        option_ids: [],
        image_urls: [],
      });
    }

    // Discounts, never more than what they discount.
    const discounts: OrderDiscount[] = [];
    let discountsAmount = 0;
    if (itemsAmount > 0 && r.chance(0.15)) {
      const d = r.pick(DISCOUNTS);
      const amount = Math.min(
        'percent' in d ? Math.round((itemsAmount * d.percent) / 100) : money.of(d.amount),
        itemsAmount + answersAmount,
      );
      discountsAmount += amount;
      discounts.push({ id: id36('disc', ++extraCounter), name: d.name, amount, type: d.type });
    }

    // Service: delivery, self pickup, or none (dine-in, which attracts the service charge).
    const kind = r.weighted(SERVICE_KINDS, SERVICE_KIND_WEIGHTS);
    const service = makeService(r, kind, customer, store, money);
    const serviceAmount = service?.price ?? 0;
    const sc = store.service_charge;
    const serviceChargeAmount =
      service === null && sc !== null
        ? Math.round(((itemsAmount + answersAmount - discountsAmount) * sc.rate) / 100) + sc.amount
        : 0;
    const tipAmount = r.chance(0.1) ? money.of(r.int(1, 10) * 100) : 0;
    const rawAdjustment = r.chance(0.04) ? money.of(r.int(1, 20) * 50) * (r.chance(0.7) ? -1 : 1) : 0;
    const subtotal =
      itemsAmount + answersAmount - discountsAmount + serviceAmount + serviceChargeAmount + tipAmount;
    // A negative adjustment (goodwill, rounding) never takes the order below zero.
    const adjustment = Math.max(rawAdjustment, -subtotal);
    const totalBeforeTax = subtotal + adjustment;
    const percent = store.tax.percent;
    const taxAmount = store.tax.inclusive
      ? Math.round((totalBeforeTax * percent) / (100 + percent))
      : Math.round((totalBeforeTax * percent) / 100);
    const totalAmount = store.tax.inclusive ? totalBeforeTax : totalBeforeTax + taxAmount;

    const created = iso(createdMs);
    const updatedMs =
      orderStatus === 'draft' || orderStatus === 'pending'
        ? createdMs
        : createdMs + r.int(600, 6 * 86_400) * 1000;
    const number = String(1001 + i);
    orders[i] = {
      id: id36('ord', i + 1),
      object: 'order',
      number,
      name: `#${number}`,
      store: { ...storeRef },
      order_status: orderStatus,
      payment_status: paymentStatus,
      payment_method: r.weighted(PAYMENT_METHODS, PAYMENT_METHOD_WEIGHTS),
      fulfillment_status: fulfillmentStatus,
      remark: r.chance(0.25) ? r.pick(REMARKS) : '',
      internal_note: r.chance(0.08) ? r.pick(INTERNAL_NOTES) : '',
      attribution: r.chance(0.25) ? makeAttribution(r, createdMs, extraCounter++) : null,
      customer,
      line_items: lines,
      answers,
      discounts,
      service,
      schedule: r.chance(0.2) ? makeSchedule(r, createdMs, store.timezone) : null,
      items_quantity: itemsQuantity,
      items_amount: itemsAmount,
      answers_amount: answersAmount,
      discounts_amount: discountsAmount,
      service_amount: serviceAmount,
      service_charge_amount: serviceChargeAmount,
      tip_amount: tipAmount,
      adjustment_amount: adjustment,
      total_before_tax: totalBeforeTax,
      tax_amount: taxAmount,
      total_amount: totalAmount,
      currency: store.currency,
      created_at: created,
      updated_at: iso(Math.min(updatedMs, nowMs)),
    };
  }
  return orders;
}

function makeLine(r: Prng, n: number, product: Product): OrderLineItem {
  const variant = product.variants.length > 0 ? r.pick(product.variants) : null;
  const quantity = r.weighted(LINE_QUANTITIES, LINE_QUANTITY_WEIGHTS);
  let unitPrice = variant ? variant.price : product.price;
  const options: OrderLineItem['options'] = [];
  for (const o of product.options) {
    if (!o.required && !r.chance(0.5)) continue;
    const line = lineOption(r, o);
    if (line === null) continue;
    for (const p of line.prices) unitPrice += p;
    options.push(line);
  }
  return {
    id: id36('li', n),
    object: 'order_line_item',
    product_id: product.id,
    variant_id: variant ? variant.id : null,
    name: variant ? `${product.name} (${variant.name})` : product.name,
    sku: variant ? variant.sku : product.sku,
    quantity,
    quantity_float: quantity,
    unit: product.unit,
    unit_value: product.unit_value,
    price: unitPrice,
    total_amount: unitPrice * quantity,
    options,
    image_urls: product.images.length > 0 ? [product.images[0] as string] : [],
  };
}

interface SelectionChoice {
  text: string;
  id: string;
  price: number;
}

function lineOption(r: Prng, o: ProductOption): OrderLineItem['options'][number] | null {
  if (o.type === 'OPTION_SELECTION') {
    const choices = (o.settings as { options?: SelectionChoice[] } | undefined)?.options ?? [];
    if (choices.length === 0) return null;
    const ch = r.pick(choices);
    return {
      question_id: o.id,
      question_text: o.text,
      question_type: o.type,
      answers: [ch.text],
      prices: [ch.price],
      quantities: [1],
      option_ids: [ch.id],
      text: '',
      image_urls: [],
    };
  }
  const template = FAMILY_OPTION_ANSWERS.get(o.text);
  const text = template ? r.pick(template) : 'Yes';
  return {
    question_id: o.id,
    question_text: o.text,
    question_type: o.type,
    answers: [text],
    prices: [0],
    quantities: [1],
    option_ids: [],
    text,
    image_urls: [],
  };
}

const FAMILY_OPTION_ANSWERS = new Map<string, readonly string[]>(
  FAMILIES.flatMap((f) =>
    f.options.filter((o) => o.answers).map((o) => [o.text, o.answers as readonly string[]] as const),
  ),
);

const COURIERS = ['Lalamove', 'Grab Express', 'J&T Express', 'Pos Laju', 'Ninja Van'];

function makeService(
  r: Prng,
  kind: 'delivery' | 'pickup' | 'none',
  customer: Customer,
  store: Store,
  money: Money,
): OrderService | null {
  if (kind === 'none') return null;
  if (kind === 'pickup') {
    return {
      title: 'Self pickup',
      name: 'Pickup at counter',
      price: 0,
      distance: null,
      distance_unit: null,
      location: store.address ? { ...store.address } : null,
    };
  }
  const distance = Math.round(r.float(0.8, 25) * 10) / 10;
  return {
    title: 'Delivery',
    name: r.pick(COURIERS),
    price: money.price(400 + Math.round(distance * 60)),
    distance,
    distance_unit: 'km',
    location: customer.address
      ? { ...customer.address }
      : makeAddress(r, store.country, COUNTRIES[store.country] ?? MY),
  };
}

function makeAttribution(r: Prng, createdMs: number, n: number): OrderAttribution {
  const channel = r.weighted(CHANNELS, CHANNEL_WEIGHTS);
  const fromAd = channel !== 'web' && r.chance(0.6);
  return {
    channel,
    ctwa_clid: channel === 'whatsapp' && fromAd ? `ARA${digits(r, 12)}` : null,
    source_id: fromAd ? digits(r, 15) : null,
    source_type: fromAd ? 'ad' : channel === 'web' ? null : 'post',
    source_url: fromAd ? `https://fb.me/${n.toString(36)}${digits(r, 4)}` : null,
    headline: fromAd ? r.pick(['Raya sale: 15% off', 'New tees are in', 'Fresh roast Monday']) : null,
    conversation_id: channel === 'whatsapp' ? `conv_${digits(r, 10)}` : null,
    referred_at: iso(createdMs - r.int(60, 7200) * 1000),
  };
}

function makeSchedule(r: Prng, createdMs: number, timezone: string): OrderSchedule {
  const day = Math.floor(createdMs / DAY) * DAY + r.int(1, 7) * DAY;
  const time = day + r.int(2, 10) * 3_600_000;
  return { date: iso(day), time: iso(time), time_end: iso(time + 3_600_000), timezone };
}

// ---- templates ----

function makeTemplates(): MessageTemplate[] {
  const t = (
    n: number,
    name: string,
    status: MessageTemplate['status'],
    category: MessageTemplate['category'],
    body: string,
    extra: Partial<MessageTemplate> = {},
  ): MessageTemplate => ({
    id: id36('tpl', n),
    object: 'message_template',
    name,
    status,
    category,
    language: 'en',
    header: null,
    header_image_url: null,
    body,
    footer: null,
    buttons: [],
    parameters: templateVariables(body),
    rejected_reason: null,
    ...extra,
  });
  return [
    t(
      1,
      'order_update',
      'APPROVED',
      'UTILITY',
      'Hi {{name}}, your order #{{order_number}} has been updated. Reply to this message if you have any questions.',
      {
        header: 'Order update',
        footer: 'Kopi & Kain',
      },
    ),
    t(
      2,
      'payment_reminder',
      'APPROVED',
      'UTILITY',
      'Hi {{name}}, a friendly reminder that order #{{order_number}} ({{amount}}) is awaiting payment.',
      {
        buttons: [{ type: 'QUICK_REPLY', text: 'I have paid' }],
      },
    ),
    t(
      3,
      'ready_for_pickup',
      'APPROVED',
      'UTILITY',
      'Hi {{name}}, order #{{order_number}} is ready for pickup at our {{outlet}} outlet.',
      {
        language: 'ms',
      },
    ),
    t(
      4,
      'weekend_promo',
      'PENDING',
      'MARKETING',
      'Hi {{name}}! This weekend only: 15% off all coffee beans with code {{code}}.',
      {
        footer: 'Reply STOP to opt out',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Shop now' },
          { type: 'QUICK_REPLY', text: 'Stop promotions' },
        ],
      },
    ),
    t(5, 'flash_sale', 'REJECTED', 'MARKETING', '{{discount}} off everything, today only {{link}}', {
      rejected_reason: 'INVALID_FORMAT: the body cannot start or end with a variable.',
    }),
    t(6, 'restock_alert', 'PAUSED', 'MARKETING', 'Good news {{name}}, {{product}} is back in stock!', {
      header_image_url: 'https://kopikain.example.com/img/restock.png',
    }),
  ];
}

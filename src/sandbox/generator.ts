import type {
  Address,
  Customer,
  InventoryItem,
  MessageTemplate,
  Order,
  OrderAnswer,
  OrderAttribution,
  OrderDiscount,
  OrderLineItem,
  OrderSchedule,
  OrderService,
  Product,
  ProductOption,
  Store,
  StoreSnapshot,
  Variant,
} from '../schema/index.js';
import { templateVariables } from '../schema/index.js';
import { Prng } from './prng.js';
import { SAMPLE_TEMPLATES } from './generator-data/templates.js';
import {
  type Axis,
  type OptionTemplate,
  FAMILIES,
  FAMILY_WEIGHTS,
  CROSS_CATEGORIES,
  VARIANT_COUNTS,
  VARIANT_COUNT_WEIGHTS,
  FAMILY_OPTION_ANSWERS,
} from './generator-data/catalog.js';
import {
  EMAIL_DOMAINS,
  PAYMENT_METHODS,
  PAYMENT_METHOD_WEIGHTS,
  REMARKS,
  INTERNAL_NOTES,
  DISCOUNTS,
  STATE_COMBOS,
  STATE_WEIGHTS,
  IMAGE_COUNTS,
  IMAGE_COUNT_WEIGHTS,
  LINE_COUNTS,
  LINE_COUNT_WEIGHTS,
  LINE_QUANTITIES,
  LINE_QUANTITY_WEIGHTS,
  SERVICE_KINDS,
  SERVICE_KIND_WEIGHTS,
  CHANNELS,
  CHANNEL_WEIGHTS,
  COURIERS,
} from './generator-data/orders.js';
import { type CountryInfo, digits, COUNTRIES, MY, CUSTOMER_COUNTRIES } from './generator-data/people.js';
import { Money } from './generator-money.js';
import { taxAndTotal } from './order-money.js';
import { SANDBOX_IMAGE_BASE } from './tables/rehost-images.js';

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
 * - The data drawn from (product families, names, cities, currencies, order details, templates)
 *   is in `./generator-data/`; this module is only the generation logic. Output per seed is pinned
 *   by `test/unit/sandbox/generator-digest.test.ts`.
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
 *     taxed base            = total_before_tax - tip_amount    (a tip is outside the tax, see taxAndTotal;
 *                                                               the whole total_before_tax with tipsInTax)
 *     tax exclusive (store.tax.inclusive = false):
 *         tax_amount   = round(taxed base * percent / 100)
 *         total_amount = total_before_tax + tax_amount
 *     tax inclusive (store.tax.inclusive = true): prices already contain the tax, so
 *         tax_amount   = round(taxed base * percent / (100 + percent))   (the included part)
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
  /**
   * Whether the store's tax covers tips (default false: a tip is outside the tax, see taxAndTotal).
   * True gives the stores generated before that decision, tax on the whole total before tax.
   */
  tipsInTax?: boolean;
}

const DEFAULT_NOW = '2026-11-01T00:00:00.000Z';
const DAY = 86_400_000;
/** Where generated product images live: the sandbox's storage (it serves `/__sandbox/images/<id>.png`). */
export { SANDBOX_IMAGE_BASE };

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
  return generate(opts, () => undefined, true);
}

/**
 * The same store as generateStore, but each product is handed to `onProduct` as it is made and
 * not kept (the snapshot's `products` is empty), unless orders are generated too (their lines
 * name products): a sandbox of 330,000 products then never holds them all as objects.
 */
export function generateStoreStreamed(
  opts: GenerateStoreOptions,
  onProduct: (p: Product) => void,
): StoreSnapshot {
  return generate(opts, onProduct, false);
}

function generate(opts: GenerateStoreOptions, onProduct: (p: Product) => void, keep: boolean): StoreSnapshot {
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
  const productCount = count(opts.products, 20);
  const orderCount = count(opts.orders, 50);
  const products: Product[] = [];
  makeProducts(root.fork('products'), productCount, nowMs, money, (p) => {
    onProduct(p);
    if (keep || orderCount > 0) products.push(p);
  });
  const customers = makeCustomers(root.fork('customers'), count(opts.customers, 30), country, nowMs);
  const orders = makeOrders(
    root.fork('orders'),
    orderCount,
    store,
    products,
    customers,
    nowMs,
    money,
    opts.tipsInTax === true,
  );
  const templates = makeTemplates();
  return {
    format: 'merchant-bulk/snapshot',
    version: 1,
    me: store,
    products: keep ? products : [],
    customers,
    orders,
    templates,
  };
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

function makeProducts(r: Prng, n: number, nowMs: number, money: Money, emit: (p: Product) => void): void {
  const c: Counters = { product: 0, variant: 0, option: 0, choice: 0, inventory: 0, image: 0 };
  // Catalog built over the second year before `now`, in creation order.
  const start = nowMs - 730 * DAY;
  const step = n > 0 ? (365 * DAY) / n : 0;
  for (let i = 0; i < n; i++) {
    const created = Math.floor(start + i * step + r.next() * step);
    const updated = r.chance(0.4) ? created + r.int(1, 300) * DAY + r.int(0, 86_399) * 1000 : created;
    emit(makeProduct(r, c, created, Math.min(updated, nowMs - DAY), money));
  }
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
  tipsInTax: boolean,
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
    const { tax: taxAmount, total: totalAmount } = taxAndTotal(
      totalBeforeTax,
      store.tax,
      tipsInTax ? 0 : tipAmount,
    );

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
  return SAMPLE_TEMPLATES.map((row, i): MessageTemplate => ({
    id: id36('tpl', i + 1),
    object: 'message_template',
    name: row.name,
    status: row.status,
    category: row.category,
    language: 'en',
    header: null,
    header_image_url: null,
    body: row.body,
    footer: null,
    buttons: [],
    parameters: templateVariables(row.body),
    rejected_reason: null,
    ...row.extra,
  }));
}

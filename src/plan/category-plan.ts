import type { DesiredProduct } from '../mapping/product-desired.js';
import type { LiveCatalog } from './live-catalog.js';

/**
 * How new products get their categories (merchant-api-v2.md, products rule 2: "A product with no
 * category is not listed on the storefront"). The API has no category listing: the store's
 * categories are the ids its products use.
 */
export interface CategoryChoice {
  /**
   * `--category-map FILE`: a source category (a WooCommerce path `Clothing > Hoodies` or its last
   * name, a Shopify type or product category, an Etsy section, a Wix collection…) → store category
   * ids. Keys are compared by categoryKey.
   */
  map?: ReadonlyMap<string, readonly string[]> | undefined;
  /** `--default-category ID`: what a new product gets when nothing else gives it a category. */
  defaultId?: string | undefined;
  /** `--no-category`: new products without a category are created so (not listed), said in the plan. */
  none?: boolean | undefined;
  /**
   * `--apply` refuses while a new product would have no category and `none` is not set (default
   * false: the project's own sheets give `category_ids` themselves; migrations set it).
   */
  required?: boolean | undefined;
}

/** plan.json's `categories`: what the new products of a plan get. */
export interface CategoryPlan {
  /** New products that get no category: not listed on the storefront. */
  without: number;
  /** Labels of up to 20 of them. */
  examples: string[];
  /** New products per store category id they get. */
  byCategory: Record<string, number>;
  /** Source categories of new products that no map entry names: new products per name. */
  unmapped: Record<string, number>;
  /** The store's categories: each id its products use, with how many products use it. */
  live: Record<string, number>;
  /** Source categories whose name matches a store category id (`Apparel` → `cat_apparel`). */
  suggested: Record<string, string>;
  /** Category ids new products get (map, default, sheet) that no product of the store uses: written, but warned. */
  unknownIds: string[];
  /** The choices made (`--category-map`, `--default-category`, `--no-category`). */
  choice: { map: boolean; defaultId?: string; none: boolean };
  /** Whether `--apply` refuses while `without` > 0 (see CategoryChoice.required). */
  required: boolean;
}

/** A category name as compared: lower case, spaces collapsed, ` > ` between levels. */
export function categoryKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\s*>\s*/g, ' > ')
    .replace(/\s+/g, ' ');
}

/** A name or id reduced to letters and digits between dashes (`cat_Best Sellers` → `best-sellers`). */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/^(cat|category|categories)[_\-:]/, '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * The keys a source category is looked up by: its whole path, its last name, then the paths of its
 * parents from the nearest (`Clothing > Hoodies`, `Hoodies`, `Clothing`).
 */
function lookupKeys(name: string): string[] {
  const parts = categoryKey(name).split(' > ');
  const keys = [parts.join(' > ')];
  const leaf = parts.at(-1) as string;
  if (parts.length > 1) keys.push(leaf);
  for (let n = parts.length - 1; n >= 1; n--) keys.push(parts.slice(0, n).join(' > '));
  return keys;
}

/** The store's categories: each id its products use, with how many use it. */
export function liveCategories(catalog: LiveCatalog): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of catalog.products) for (const id of p.category_ids) out[id] = (out[id] ?? 0) + 1;
  return out;
}

/** Source categories whose name (or last name) matches a store category id by its letters. */
export function suggestCategoryMap(
  names: Iterable<string>,
  live: Readonly<Record<string, number>>,
): Record<string, string> {
  const bySlug = new Map<string, string>();
  for (const id of Object.keys(live)) if (!bySlug.has(slug(id))) bySlug.set(slug(id), id);
  const out: Record<string, string> = {};
  for (const name of names) {
    for (const key of lookupKeys(name)) {
      const id = bySlug.get(slug(key));
      if (id !== undefined) {
        out[name] = id;
        break;
      }
    }
  }
  return out;
}

/** Collects what each new product of a plan gets, and gives it its category ids. */
export class CategoryPlanner {
  private readonly choice: CategoryChoice;
  private readonly live: Record<string, number>;
  private readonly plan: CategoryPlan;
  private readonly sourceNames = new Set<string>();
  private readonly given = new Set<string>();

  constructor(catalog: LiveCatalog, choice: CategoryChoice) {
    this.choice = choice;
    this.live = liveCategories(catalog);
    this.plan = {
      without: 0,
      examples: [],
      byCategory: {},
      unmapped: {},
      live: this.live,
      suggested: {},
      unknownIds: [],
      choice: {
        map: choice.map !== undefined,
        ...(choice.defaultId !== undefined ? { defaultId: choice.defaultId } : {}),
        none: choice.none === true,
      },
      required: choice.required === true,
    };
  }

  /** The ids the map gives one source category (undefined: the map does not name it). */
  private mapOf(name: string): readonly string[] | undefined {
    for (const key of lookupKeys(name)) {
      const found = this.choice.map?.get(key);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The ids the map gives a product's source categories (in their order, each once). */
  private idsOf(names: readonly string[]): string[] {
    const ids: string[] = [];
    for (const name of names) for (const id of this.mapOf(name) ?? []) if (!ids.includes(id)) ids.push(id);
    return ids;
  }

  /**
   * A product the plan would create: the same product, or a copy with the category ids its source
   * categories (through the map) or the default give it. A sheet's own `category_ids` are kept.
   */
  give(dp: DesiredProduct): DesiredProduct {
    const ids = dp.fields.category_ids;
    if (ids !== undefined && ids.length > 0) return dp;
    const chosen = this.choice.map === undefined ? [] : this.idsOf(dp.sourceCategories ?? []);
    if (chosen.length === 0 && this.choice.defaultId !== undefined) chosen.push(this.choice.defaultId);
    return chosen.length === 0 ? dp : { ...dp, fields: { ...dp.fields, category_ids: chosen } };
  }

  /** Counts a product the plan creates (after give): its categories, or none. */
  count(dp: DesiredProduct, label: string): void {
    const names = dp.sourceCategories ?? [];
    for (const n of names) this.sourceNames.add(n);
    if (this.choice.map !== undefined)
      for (const n of names)
        if (this.mapOf(n) === undefined) this.plan.unmapped[n] = (this.plan.unmapped[n] ?? 0) + 1;
    const ids = dp.fields.category_ids ?? [];
    if (ids.length === 0) {
      this.plan.without++;
      if (this.plan.examples.length < 20) this.plan.examples.push(label);
      return;
    }
    for (const id of ids) {
      this.plan.byCategory[id] = (this.plan.byCategory[id] ?? 0) + 1;
      if (this.live[id] === undefined) this.given.add(id);
    }
  }

  /** The plan's category summary (undefined: the plan creates no product). */
  finish(): CategoryPlan | undefined {
    if (this.plan.without === 0 && Object.keys(this.plan.byCategory).length === 0) return undefined;
    this.plan.suggested = suggestCategoryMap(this.sourceNames, this.live);
    this.plan.unknownIds = [...this.given];
    return this.plan;
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The plan's lines about categories (terminal, report): what each category gets, then the rest. */
export function categoryLines(c: CategoryPlan): { lines: string[]; warnings: string[] } {
  const lines: string[] = [];
  const warnings: string[] = [];
  const given = Object.entries(c.byCategory).sort((a, b) => b[1] - a[1]);
  if (given.length > 0)
    lines.push(`Categories: ${given.map(([id, n]) => `${id} gets ${plural(n, 'new product')}`).join(', ')}`);
  if (c.without > 0) warnings.push(categoryWithoutMessage(c));
  const unmapped = Object.entries(c.unmapped).sort((a, b) => b[1] - a[1]);
  if (unmapped.length > 0 && c.choice.map)
    warnings.push(
      `Categories not in --category-map: ${unmapped
        .slice(0, 20)
        .map(([name, n]) => `"${name}" (${plural(n, 'product')})`)
        .join(', ')}${unmapped.length > 20 ? `, and ${unmapped.length - 20} more` : ''}`,
    );
  if (c.unknownIds.length > 0)
    warnings.push(
      `warning: category id${c.unknownIds.length === 1 ? '' : 's'} ${c.unknownIds.map((id) => `"${id}"`).join(', ')} ${c.unknownIds.length === 1 ? 'is' : 'are'} used by no product of the store: check ${c.unknownIds.length === 1 ? 'it' : 'them'} (written as given)`,
    );
  const live = Object.entries(c.live).sort((a, b) => b[1] - a[1]);
  if (c.without > 0 || c.choice.map || c.choice.defaultId !== undefined) {
    lines.push(
      live.length === 0
        ? "Store categories: none (no product of the store has a category; the API lists categories only through products' category_ids)"
        : `Store categories: ${live.map(([id, n]) => `${id} (${plural(n, 'product')})`).join(', ')}`,
    );
    const suggested = Object.entries(c.suggested);
    if (suggested.length > 0 && !c.choice.map)
      lines.push(
        `Suggested --category-map (by name): ${JSON.stringify({ categories: Object.fromEntries(suggested) })}`,
      );
  }
  return { lines, warnings };
}

/** The line about new products without a category. */
export function categoryWithoutMessage(c: CategoryPlan): string {
  const what = `${plural(c.without, 'new product')} would have no category, so ${c.without === 1 ? 'it is' : 'they are'} not listed on the storefront`;
  if (c.choice.none) return `Categories: ${what} (--no-category)`;
  if (!c.required) return `Categories: ${what}; give them category_ids`;
  return `Categories: ${what}: --apply refuses (nothing is written) until you choose --category-map FILE (source category → store category id), --default-category ID or --no-category (create them unlisted)`;
}

/** Why `--apply` refuses a plan whose new products would have no category (undefined: it does not). */
export function categoryRefusal(plan: { categories?: CategoryPlan | undefined }): string | undefined {
  const c = plan.categories;
  if (c === undefined || !c.required || c.choice.none || c.without === 0) return undefined;
  return `no category: ${categoryWithoutMessage(c).replace(/^Categories: /, '')}`;
}

import type { DesiredChoice, DesiredOption } from '../mapping/product-desired.js';
import type { RowIssue } from '../mapping/row-issue.js';
import type { OptionCreate, OptionUpdateEntry } from '../schema/product.js';
import type { LiveOption, LiveProduct } from './live-catalog.js';
import { planIssue } from './plan-context.js';
import type { PlanContext } from './plan-context.js';
import type { FieldChange } from './product-plan.js';

interface LiveChoice {
  text: string;
  id?: string;
  price?: number;
  quantity?: number;
}

function settingsObject(settings: unknown): Record<string, unknown> | undefined {
  return typeof settings === 'object' && settings !== null && !Array.isArray(settings)
    ? (settings as Record<string, unknown>)
    : undefined;
}

function liveChoices(settings: Record<string, unknown> | undefined): LiveChoice[] {
  const list = settings?.['options'];
  if (!Array.isArray(list)) return [];
  const out: LiveChoice[] = [];
  for (const item of list as unknown[]) {
    const o = settingsObject(item);
    if (o === undefined || typeof o['text'] !== 'string') continue;
    const c: LiveChoice = { text: o['text'] };
    if (typeof o['id'] === 'string') c.id = o['id'];
    if (typeof o['price'] === 'number') c.price = o['price'];
    if (typeof o['quantity'] === 'number') c.quantity = o['quantity'];
    out.push(c);
  }
  return out;
}

function showChoices(choices: readonly LiveChoice[]): string[] {
  return choices.map((c) => (c.price === undefined ? c.text : `${c.text}:${c.price}`));
}

/** Settings of a new option from its sheet row (undefined when the row gives none). */
function newSettings(o: DesiredOption): Record<string, unknown> | undefined {
  if (
    o.choices === undefined &&
    o.min === undefined &&
    o.max === undefined &&
    o.enableQuantity === undefined
  ) {
    return undefined;
  }
  const s: Record<string, unknown> = {};
  if (o.choices !== undefined) s['options'] = o.choices.map((c) => ({ ...c }));
  if (o.min !== undefined) s['min'] = o.min;
  if (o.max !== undefined) s['max'] = o.max;
  if (o.enableQuantity !== undefined) s['enableQuantity'] = o.enableQuantity;
  return s;
}

function requireNew(ctx: PlanContext, o: DesiredOption, issues: RowIssue[]): OptionCreate | undefined {
  let ok = true;
  if (o.type === undefined) {
    issues.push(
      planIssue(
        ctx,
        o.row,
        'option_type',
        'option_type_required',
        'a new option needs an option_type, e.g. OPTION_SELECTION',
      ),
    );
    ok = false;
  }
  if (o.text === undefined || o.text === '') {
    issues.push(
      planIssue(
        ctx,
        o.row,
        'option_text',
        'option_text_required',
        'a new option needs an option_text (its label)',
      ),
    );
    ok = false;
  }
  if (!ok) return undefined;
  const entry: OptionCreate = { type: o.type as OptionCreate['type'], text: o.text as string };
  if (o.required !== undefined) entry.required = o.required;
  const settings = newSettings(o);
  if (settings !== undefined) entry.settings = settings;
  return entry;
}

/** Options of a new product (ProductCreate.options). */
export function createOptions(
  ctx: PlanContext,
  desired: readonly DesiredOption[],
): { options: OptionCreate[]; changes: FieldChange[]; issues: RowIssue[] } {
  const options: OptionCreate[] = [];
  const changes: FieldChange[] = [];
  const issues: RowIssue[] = [];
  for (const o of desired) {
    if (o.id !== undefined) {
      issues.push(
        planIssue(
          ctx,
          o.row,
          'option_id',
          'option_not_found',
          `option_id "${o.id}" cannot belong to a new product; leave option_id blank`,
        ),
      );
      continue;
    }
    const entry = requireNew(ctx, o, issues);
    if (entry === undefined) continue;
    options.push(entry);
    changes.push({ path: `options[${entry.text}]`, before: null, after: null, note: 'added' });
  }
  return { options, changes, issues };
}

function keepEntry(lo: LiveOption): OptionUpdateEntry {
  const e: OptionUpdateEntry = { id: lo.id, text: lo.text, required: lo.required };
  if (lo.settings !== undefined) e.settings = lo.settings;
  return e;
}

/**
 * Diffs the sheet's options of one product against the live ones. Options match by option_id,
 * then by text (case-insensitive). Live options the sheet does not list are kept (`{id, text,
 * required, settings}`) unless `replace.options`. A type change is an error unless
 * `replace.options` (then the old option is removed and a new one of the new type added).
 * `option_choices` is an option's full choice list; live choice ids are kept by choice text.
 */
export function diffOptions(
  ctx: PlanContext,
  desired: readonly DesiredOption[],
  live: LiveProduct,
): { options?: OptionUpdateEntry[]; changes: FieldChange[]; issues: RowIssue[] } {
  const changes: FieldChange[] = [];
  const issues: RowIssue[] = [];
  const byId = new Map(live.options.map((o) => [o.id, o]));
  const byText = new Map<string, LiveOption>();
  for (const o of live.options) if (!byText.has(o.text.toLowerCase())) byText.set(o.text.toLowerCase(), o);
  const matched = new Map<LiveOption, OptionUpdateEntry>();
  const sheetOrder: OptionUpdateEntry[] = [];
  const added: OptionUpdateEntry[] = [];
  let changed = false;

  for (const o of desired) {
    let lo: LiveOption | undefined;
    if (o.id !== undefined) {
      lo = byId.get(o.id);
      if (lo === undefined) {
        issues.push(
          planIssue(
            ctx,
            o.row,
            'option_id',
            'option_not_found',
            `option_id "${o.id}" is not an option of this product; leave it blank to add a new option`,
          ),
        );
        continue;
      }
    } else if (o.text !== undefined) {
      lo = byText.get(o.text.toLowerCase());
    }
    if (lo !== undefined && matched.has(lo)) {
      issues.push(
        planIssue(
          ctx,
          o.row,
          'option_text',
          'duplicate_option',
          `option "${lo.text}" is listed twice for this product; list it once`,
        ),
      );
      continue;
    }
    const name = o.text ?? lo?.text ?? o.id ?? '?';
    if (lo !== undefined && o.type !== undefined && o.type !== lo.type) {
      if (!ctx.replace.options) {
        issues.push(
          planIssue(
            ctx,
            o.row,
            'option_type',
            'option_type_change',
            `option "${lo.text}" is ${lo.type}; an option's type cannot change. Write ${lo.type}, or import with --replace options to delete it and create a new ${o.type} option`,
          ),
        );
        continue;
      }
      changes.push({ path: `options[${name}].type`, before: lo.type, after: o.type });
      lo = undefined; // replaced: the live one is removed below, a new one is created
      const entry = requireNew(ctx, { ...o, text: o.text ?? name }, issues);
      if (entry === undefined) continue;
      added.push(entry);
      sheetOrder.push(entry);
      changed = true;
      continue;
    }
    if (lo === undefined) {
      const entry = requireNew(ctx, o, issues);
      if (entry === undefined) continue;
      added.push(entry);
      sheetOrder.push(entry);
      changes.push({ path: `options[${name}]`, before: null, after: null, note: 'added' });
      changed = true;
      continue;
    }
    const entry = keepEntry(lo);
    if (o.text !== undefined && o.text !== lo.text) {
      entry.text = o.text;
      changes.push({ path: `options[${lo.text}].text`, before: lo.text, after: o.text });
    }
    if (o.required !== undefined && o.required !== lo.required) {
      entry.required = o.required;
      changes.push({ path: `options[${name}].required`, before: lo.required, after: o.required });
    }
    const settingsChange = diffSettings(o, lo);
    if (settingsChange !== undefined) {
      entry.settings = settingsChange.settings;
      for (const c of settingsChange.changes) changes.push({ ...c, path: `options[${name}].${c.path}` });
    }
    if (entry.text !== lo.text || entry.required !== lo.required || settingsChange !== undefined)
      changed = true;
    matched.set(lo, entry);
    sheetOrder.push(entry);
  }

  let options: OptionUpdateEntry[];
  if (ctx.replace.options) {
    for (const lo of live.options) {
      if (!matched.has(lo)) {
        changes.push({ path: `options[${lo.text}]`, before: null, after: null, note: 'removed' });
        changed = true;
      }
    }
    options = sheetOrder;
  } else {
    options = live.options.map((lo) => matched.get(lo) ?? keepEntry(lo));
    for (const a of added) options.push(a);
  }
  const out: { options?: OptionUpdateEntry[]; changes: FieldChange[]; issues: RowIssue[] } = {
    changes,
    issues,
  };
  if (changed) out.options = options;
  return out;
}

/** New settings when the sheet's choices/min/max/enableQuantity differ from the live ones. */
function diffSettings(
  o: DesiredOption,
  lo: LiveOption,
): { settings: Record<string, unknown>; changes: FieldChange[] } | undefined {
  const current = settingsObject(lo.settings);
  const next: Record<string, unknown> = { ...current };
  const changes: FieldChange[] = [];
  if (o.choices !== undefined) {
    const have = liveChoices(current);
    const byText = new Map(have.map((c) => [c.text.toLowerCase(), c]));
    const merged = o.choices.map((c: DesiredChoice) => {
      const prev = byText.get(c.text.toLowerCase());
      const m: LiveChoice = { text: c.text };
      if (prev?.id !== undefined) m.id = prev.id;
      const price = c.price ?? prev?.price;
      if (price !== undefined) m.price = price;
      const quantity = c.quantity ?? prev?.quantity;
      if (quantity !== undefined) m.quantity = quantity;
      return m;
    });
    const same =
      merged.length === have.length &&
      merged.every((m, i) => {
        const h = have[i] as LiveChoice;
        return m.text === h.text && m.price === h.price && m.quantity === h.quantity;
      });
    if (!same) {
      next['options'] = merged;
      changes.push({ path: 'choices', before: showChoices(have), after: showChoices(merged) });
    }
  }
  const scalar = (key: 'min' | 'max' | 'enableQuantity', want: number | boolean | undefined): void => {
    if (want === undefined) return;
    const have = current?.[key];
    if (have === want) return;
    next[key] = want;
    changes.push({
      path: key,
      before: typeof have === 'number' || typeof have === 'boolean' ? have : null,
      after: want,
    });
  };
  scalar('min', o.min);
  scalar('max', o.max);
  scalar('enableQuantity', o.enableQuantity);
  return changes.length === 0 ? undefined : { settings: next, changes };
}

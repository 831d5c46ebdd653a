import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { cellText, isBlank } from '../sheets/cell-result.js';
import { TEMPLATE_LIMITS, TemplateCreate, templateVariables } from '../schema/template.js';
import type { TemplateButton } from '../schema/template.js';
import type { RowIssue } from './row-issue.js';

const BASE_FIELDS = ['name', 'category', 'language', 'header', 'header_image_url', 'body', 'footer'] as const;
const BUTTON_FIELDS = ['type', 'text', 'url', 'phone_number'] as const;
const BUTTON_COLUMN = /^button_(\d+)_(type|text|url|phone_number)$/;
const EXAMPLE_COLUMN = /^example_(.+)$/;
/**
 * A language code as template languages are written: ISO 639 language, optionally a region or
 * script (`en`, `ms`, `en_US`, `pt_BR`, `zh_Hant`; `-` accepted as well as `_`).
 */
const LANGUAGE_CODE = /^[a-z]{2,3}(?:[_-](?:[A-Z]{2}|[A-Z][a-z]{3}|\d{3}))?$/;
/** A body whose first or last thing is a variable (surrounding white space aside). */
const STARTS_WITH_VARIABLE = /^\s*\{\{[^{}]*\}\}/;
const ENDS_WITH_VARIABLE = /\{\{[^{}]*\}\}\s*$/;

/** A template as the sheet describes it, ready to POST, with the row it came from. */
export interface DesiredTemplate {
  sheet: string;
  rowNumber: number;
  body: TemplateCreate;
  /** Letter of the name column (plan issues about the name point at it). */
  nameColumn?: string;
}

export interface TemplateSheetColumns {
  byKey: Map<string, SheetColumn>;
  /** Button columns: number (1-based) → field → column. */
  buttons: Map<number, Map<string, SheetColumn>>;
  /** Example columns: variable name → column. */
  examples: Map<string, SheetColumn>;
}

export function resolveTemplateColumns(
  sheet: string,
  header: readonly SheetColumn[],
): { columns: TemplateSheetColumns; issues: RowIssue[] } {
  const columns: TemplateSheetColumns = { byKey: new Map(), buttons: new Map(), examples: new Map() };
  const issues: RowIssue[] = [];
  const warn = (
    col: SheetColumn,
    code: string,
    message: string,
    severity: RowIssue['severity'] = 'warning',
  ) => issues.push({ severity, code, message, sheet, rowNumber: 1, column: col.letter, header: col.header });
  for (const col of header) {
    const key = col.key.replace(/\s+/g, '_');
    const button = BUTTON_COLUMN.exec(key);
    const example = EXAMPLE_COLUMN.exec(col.header.trim().replace(/\s+/g, '_'));
    if ((BASE_FIELDS as readonly string[]).includes(key)) {
      columns.byKey.set(key, col);
    } else if (button) {
      const n = Number(button[1]);
      if (n < 1 || n > TEMPLATE_LIMITS.buttonsMax) {
        warn(
          col,
          'too_many_buttons',
          `a template has at most ${TEMPLATE_LIMITS.buttonsMax} buttons: use button_1_… to button_3_…`,
          'error',
        );
        continue;
      }
      const fields = columns.buttons.get(n) ?? new Map<string, SheetColumn>();
      fields.set(button[2] as string, col);
      columns.buttons.set(n, fields);
    } else if (example) {
      // Variable names keep their case: {{Name}} and {{name}} differ.
      columns.examples.set(example[1] as string, col);
    } else if (
      key !== '' &&
      !key.startsWith('mbulk_') &&
      key !== 'status' &&
      key !== 'rejected_reason' &&
      key !== 'id'
    ) {
      warn(col, 'unknown_column', `column "${col.header}" is not a template column and is ignored`);
    }
  }
  for (const required of ['name', 'body', 'category']) {
    if (!columns.byKey.has(required)) {
      issues.push({
        severity: 'error',
        code: 'missing_column',
        message: `the sheet needs a "${required}" column`,
        sheet,
        rowNumber: 1,
      });
    }
  }
  return { columns, issues };
}

/** Column of a body path reported by the schema (`buttons.1.url` → button_2_url). */
function columnOfPath(columns: TemplateSheetColumns, path: readonly PropertyKey[]): SheetColumn | undefined {
  const [head, index, field] = path;
  if (head === 'buttons' && typeof index === 'number' && typeof field === 'string') {
    return columns.buttons.get(index + 1)?.get(field);
  }
  if (head === 'parameter_examples' && typeof index === 'string') return columns.examples.get(index);
  return typeof head === 'string' ? columns.byKey.get(head) : undefined;
}

type IssueAt = (col: SheetColumn | undefined, code: string, message: string, value?: CellValue) => void;

/**
 * Rules the review applies that the create body's schema does not state, checked before any request
 * so that a template is not submitted only to be rejected days later:
 * - the body may not start or end with a variable: WhatsApp (Meta) requires fixed text at both ends
 *   of a template (see Braze's "WhatsApp template builder: Liquid" page, "templates starting or
 *   ending with a variable slot: not supported");
 * - `language` is a language code (`en`, `ms`, `en_US`), the form the spec's default (the store's
 *   template language) and the sandbox's templates use, not a name such as "English";
 * - a URL button needs its `url` (http or https), a PHONE_NUMBER button its `phone_number`.
 */
function checkReviewRules(
  body: Record<string, unknown>,
  buttons: readonly TemplateButton[],
  buttonNumbers: readonly number[],
  columns: TemplateSheetColumns,
  at: IssueAt,
): void {
  const text = body['body'];
  const bodyCol = columns.byKey.get('body');
  if (typeof text === 'string') {
    const start = STARTS_WITH_VARIABLE.test(text);
    const end = ENDS_WITH_VARIABLE.test(text);
    if (start || end) {
      const where = start && end ? 'starts and ends' : start ? 'starts' : 'ends';
      at(
        bodyCol,
        'variable_at_edge',
        `the body ${where} with a variable; the review rejects that: put fixed text before the first and after the last variable`,
      );
    }
  }
  const language = body['language'];
  if (typeof language === 'string' && language !== '' && !LANGUAGE_CODE.test(language)) {
    at(
      columns.byKey.get('language'),
      'invalid_language',
      `language must be a language code such as en, ms or en_US, not "${language}"`,
      language,
    );
  }
  buttons.forEach((b, i) => {
    const n = buttonNumbers[i] ?? i + 1;
    const cols = columns.buttons.get(n);
    const type = b.type?.trim().toUpperCase();
    if (type === 'URL') {
      if (b.url === undefined || b.url.trim() === '') {
        at(
          cols?.get('url') ?? cols?.get('type'),
          'missing_button_url',
          `button ${n} is a URL button without a URL: fill button_${n}_url (https://…)`,
        );
      } else if (!/^https?:\/\/\S+$/i.test(b.url.trim())) {
        at(
          cols?.get('url'),
          'invalid_button_url',
          `button ${n}'s URL must start with http:// or https://`,
          b.url,
        );
      }
    } else if (type === 'PHONE_NUMBER' && (b.phone_number === undefined || b.phone_number.trim() === '')) {
      at(
        cols?.get('phone_number') ?? cols?.get('type'),
        'missing_button_phone_number',
        `button ${n} is a PHONE_NUMBER button without a phone number: fill button_${n}_phone_number`,
      );
    }
  });
}

/**
 * Decodes and checks one template row against every constraint of the spec before any request:
 * the schema's rules (name pattern and length, body, header/footer length and no variables, header
 * xor image, https JPEG/PNG image, at most 3 buttons) plus an example for every body variable and
 * none for unknown ones, and the review's rules (checkReviewRules).
 */
export function mapTemplateRow(
  row: SheetRow,
  columns: TemplateSheetColumns,
): { template?: DesiredTemplate; issues: RowIssue[] } {
  const issues: RowIssue[] = [];
  const at = (col: SheetColumn | undefined, code: string, message: string, value?: CellValue): void => {
    const issue: RowIssue = { severity: 'error', code, message, sheet: row.sheet, rowNumber: row.rowNumber };
    if (col) {
      issue.column = col.letter;
      issue.header = col.header;
    }
    if (value !== undefined && value !== null && !isBlank(value)) issue.value = cellText(value);
    issues.push(issue);
  };
  const text = (col: SheetColumn | undefined): string | undefined => {
    if (!col) return undefined;
    const v = row.cells[col.key];
    return isBlank(v) ? undefined : cellText(v);
  };

  const body: Record<string, unknown> = {};
  for (const field of BASE_FIELDS) {
    let value = text(columns.byKey.get(field));
    if (value === undefined) continue;
    if (field === 'name' || field === 'header_image_url' || field === 'language') value = value.trim();
    if (field === 'category') value = value.trim().toUpperCase();
    body[field] = value;
  }
  const buttons: TemplateButton[] = [];
  /** Each button's number in the sheet (button_N_…), in the order of `buttons`. */
  const buttonNumbers: number[] = [];
  for (const n of [...columns.buttons.keys()].sort((a, b) => a - b)) {
    const fields = columns.buttons.get(n) as Map<string, SheetColumn>;
    const button: Record<string, string> = {};
    for (const f of BUTTON_FIELDS) {
      const v = text(fields.get(f));
      if (v !== undefined) button[f] = f === 'type' ? v.trim().toUpperCase() : v;
    }
    if (Object.keys(button).length > 0) {
      buttons.push(button);
      buttonNumbers.push(n);
    }
  }
  if (buttons.length > 0) body['buttons'] = buttons;

  const variables = typeof body['body'] === 'string' ? templateVariables(body['body']) : [];
  const examples: Record<string, string> = {};
  for (const [name, col] of columns.examples) {
    const v = text(col);
    if (v === undefined) continue;
    if (!variables.includes(name)) {
      at(
        col,
        'unknown_example',
        `the body has no {{${name}}} variable; remove this example or add the variable to the body`,
        v,
      );
    } else {
      examples[name] = v;
    }
  }
  for (const name of variables) {
    if (examples[name] !== undefined) continue;
    const col = columns.examples.get(name);
    at(
      col ?? columns.byKey.get('body'),
      'missing_example',
      col
        ? `the body uses {{${name}}} but the example cell ${col.letter}${row.rowNumber} (${col.header}) is blank: write a sample value for the reviewer`
        : `the body uses {{${name}}}: add a column example_${name} with a sample value for the reviewer`,
    );
  }
  checkReviewRules(body, buttons, buttonNumbers, columns, at);
  if (variables.length > 0) body['parameter_examples'] = examples;

  const parsed = TemplateCreate.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const col = columnOfPath(columns, issue.path);
      const field = issue.path.join('.');
      const blank = issue.code === 'invalid_type' && (col === undefined || isBlank(row.cells[col.key]));
      at(
        col,
        `invalid_${String(issue.path[0] ?? 'template')}`,
        blank
          ? `${field || 'template'} is required: the cell is blank`
          : `${field || 'template'}: ${issue.message}`,
        col ? row.cells[col.key] : undefined,
      );
    }
  }
  if (issues.length > 0 || !parsed.success) return { issues };
  const template: DesiredTemplate = { sheet: row.sheet, rowNumber: row.rowNumber, body: parsed.data };
  const nameColumn = columns.byKey.get('name')?.letter;
  if (nameColumn !== undefined) template.nameColumn = nameColumn;
  return { template, issues };
}

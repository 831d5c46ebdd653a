import type { CellValue, SheetColumn, SheetRow } from '../sheets/sheet-row.js';
import { cellText, isBlank } from '../sheets/cell-result.js';
import { TEMPLATE_LIMITS, TemplateCreate, templateVariables } from '../schema/template.js';
import type { TemplateButton } from '../schema/template.js';
import type { RowIssue } from './row-issue.js';

const BASE_FIELDS = ['name', 'category', 'language', 'header', 'header_image_url', 'body', 'footer'] as const;
const BUTTON_FIELDS = ['type', 'text', 'url', 'phone_number'] as const;
const BUTTON_COLUMN = /^button_(\d+)_(type|text|url|phone_number)$/;
const EXAMPLE_COLUMN = /^example_(.+)$/;

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

/**
 * Decodes and checks one template row against every constraint of the spec before any request:
 * the schema's rules (name pattern and length, body, header/footer length and no variables, header
 * xor image, https JPEG/PNG image, at most 3 buttons) plus an example for every body variable and
 * none for unknown ones.
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
  for (const n of [...columns.buttons.keys()].sort((a, b) => a - b)) {
    const fields = columns.buttons.get(n) as Map<string, SheetColumn>;
    const button: Record<string, string> = {};
    for (const f of BUTTON_FIELDS) {
      const v = text(fields.get(f));
      if (v !== undefined) button[f] = f === 'type' ? v.trim().toUpperCase() : v;
    }
    if (Object.keys(button).length > 0) buttons.push(button);
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
    if (examples[name] === undefined) {
      at(
        columns.examples.get(name) ?? columns.byKey.get('body'),
        'missing_example',
        `the body uses {{${name}}}: add a column example_${name} with a sample value for the reviewer`,
      );
    }
  }
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

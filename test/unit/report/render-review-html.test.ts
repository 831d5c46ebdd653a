import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MessagePlan } from '../../../src/plan/message-plan.js';
import type { StockPlan } from '../../../src/plan/stock-plan.js';
import { messageReview } from '../../../src/report/message-review.js';
import { FIRST_CARDS, MAX_EMBEDDED_BYTES, renderReviewHtml } from '../../../src/report/render-review-html.js';
import type { ReviewPage } from '../../../src/report/review-page.js';
import { stockReview } from '../../../src/report/stock-review.js';
import { attr, parseHtml, select, tableRows, text } from '../../helpers/review-dom.js';

const HOSTILE_NAME = '<script>alert(1)</script>';
const HOSTILE_TEXT = '<img src=x onerror="alert(2)"></script><script>alert(3)</script><!-- & "quotes" \u2028';

function page(body: Partial<ReviewPage> = {}): ReviewPage {
  return {
    title: 'Import products',
    runId: '20261123-101500-products-ab12',
    createdAt: '2026-11-23T10:15:00Z',
    facts: [['Target', 'sandbox (embedded)']],
    counts: [
      ['create', 1],
      ['update', 0],
    ],
    columns: [{ label: 'Field' }, { label: 'Before', role: 'before' }, { label: 'After', role: 'after' }],
    cards: [
      {
        action: 'create',
        name: HOSTILE_NAME,
        key: 'REF-"1"',
        images: ['https://img.example/a.png?x="><script>alert(4)</script>', 'javascript:alert(5)'],
        rows: [{ cells: ['description', '—', HOSTILE_TEXT] }],
        notes: [HOSTILE_TEXT],
      },
    ],
    invalid: [{ file: 'catalog.csv', row: 3, column: 'E', header: '<b>price</b>', message: HOSTILE_TEXT }],
    failedFile: { href: 'failed.csv', written: false },
    ...body,
  };
}

describe('renderReviewHtml', () => {
  it('shows names, descriptions and cells holding HTML and script tags as text, and has only its own script', () => {
    const html = renderReviewHtml(page());
    const doc = parseHtml(html);
    const scripts = select(doc, 'script');
    expect(scripts).toHaveLength(2);
    expect(attr(scripts[0]!, 'type')).toBe('application/json');
    expect(select(doc, '*').filter((e) => Object.keys(e.attribs).some((a) => a.startsWith('on')))).toEqual(
      [],
    );
    const card = select(doc, 'article', 'card')[0]!;
    expect(text(select(card, 'h3')[0]!)).toBe(HOSTILE_NAME);
    expect(text(select(card, 'code', 'key')[0]!)).toBe('REF-"1"');
    expect(tableRows(card)).toEqual([['description', '—', HOSTILE_TEXT]]);
    expect(text(select(card, 'li')[0]!)).toBe(HOSTILE_TEXT);
    // Only http(s) URLs become images; anything else is shown as text.
    const imgs = select(card, 'img');
    expect(imgs.map((i) => attr(i, 'src'))).toEqual([
      'https://img.example/a.png?x="><script>alert(4)</script>',
    ]);
    expect(text(select(card, 'span', 'image-text')[0]!)).toBe('javascript:alert(5)');
    const invalid = select(doc, 'section', 'invalid')[0]!;
    expect(tableRows(invalid)).toEqual([['catalog.csv', '3', 'E', '<b>price</b>', '', HOSTILE_TEXT]]);
    expect(select(invalid, 'a').map((a) => attr(a, 'href'))).toEqual(['failed.csv']);
    // The embedded data round-trips (no value can close its <script> element).
    expect(JSON.parse(text(scripts[0]!))).toEqual({ columns: page().columns, cards: page().cards });
    expect(text(scripts[0]!)).not.toMatch(/<\/?script/i);
  });

  it('allows only its own script by hash, and loads nothing from elsewhere but images', () => {
    const doc = parseHtml(renderReviewHtml(page()));
    const csp = attr(
      select(doc, 'meta').find((m) => attr(m, 'http-equiv') === 'Content-Security-Policy')!,
      'content',
    )!;
    const own = text(select(doc, 'script')[1]!);
    const hash = createHash('sha256').update(own).digest('base64');
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(csp).toContain("default-src 'none'");
    expect(select(doc, 'link')).toEqual([]);
  });

  it(`renders the first ${FIRST_CARDS} cards into the HTML and leaves the rest to the script`, () => {
    const cards = Array.from({ length: FIRST_CARDS + 50 }, (_, n) => ({
      action: n % 2 ? 'update' : 'create',
      name: `P${n}`,
      key: `K${n}`,
    }));
    const doc = parseHtml(renderReviewHtml(page({ cards })));
    expect(select(doc, 'article', 'card')).toHaveLength(FIRST_CARDS);
    const more = select(doc, 'button', 'more')[0]!;
    expect(attr(more, 'hidden')).toBeUndefined();
    const filters = select(doc, 'button').filter((b) => attr(b, 'data-filter') !== undefined);
    expect(filters.map(text)).toEqual([`all ${cards.length}`, 'create 75', 'update 75']);
    expect(JSON.parse(text(select(doc, 'script')[0]!)).cards).toHaveLength(cards.length);
  });
  it('stays under 25 MB: past its byte budget it holds the first cards and says how many of all', () => {
    const big = 'x'.repeat(2 ** 20);
    const cards = Array.from({ length: 30 }, (_, n) => ({
      action: 'send',
      name: `R${n}`,
      key: '',
      preview: big,
    }));
    const html = renderReviewHtml(page({ cards, totalCards: 40 }));
    expect(Buffer.byteLength(html)).toBeLessThan(25e6);
    const doc = parseHtml(html);
    const kept = (JSON.parse(text(select(doc, 'script')[0]!)) as { cards: unknown[] }).cards.length;
    // Each card counts twice (its JSON and, among the first cards, its HTML).
    expect(kept).toBe(Math.floor(MAX_EMBEDDED_BYTES / (2 * 2 ** 20 + 200)));
    expect(text(select(doc, 'p', 'partial')[0]!)).toContain(`the first ${kept} of 40 entities`);
    // The page names the file that holds every change: report.md (issue 25: streamed, complete).
    expect(text(select(doc, 'p', 'partial')[0]!)).toContain('every change is in report.md beside it');
  });
});

describe('page bodies per kind', () => {
  it('stock: SKU, before, after, delta per changed item', () => {
    const plan: StockPlan = {
      kind: 'stock',
      options: { preserveSales: false },
      rows: 3,
      changes: [
        {
          itemId: 'inv_1',
          sku: 'TEE-M',
          name: 'Tee / M',
          productId: 'prod_1',
          variantId: null,
          sheet: 'stock.csv',
          rowNumber: 2,
          before: 5,
          after: 2,
          mode: 'quantity',
          value: 2,
          expectedUpdatedAt: '2026-01-01T00:00:00Z',
        },
      ],
      unchanged: 1,
      skipped: [{ sheet: 'stock.csv', rowNumber: 4, reason: 'inventory tracking is off' }],
      issues: [],
    };
    const body = stockReview({ plan }, { applyCommand: 'mbulk apply X' });
    expect(body.table!.columns.map((c) => c.label)).toEqual(['SKU', 'Name', 'Before', 'After', 'Delta']);
    expect(body.table!.rows).toEqual([['TEE-M', 'Tee / M', 5, 2, -3]]);
    expect(body.table!.totals).toEqual([
      ['items up', 0],
      ['items down', 1],
      ['items to zero', 0],
      ['units added', 0],
      ['units removed', 3],
    ]);
    expect(body.cards).toEqual([
      { action: 'skip', name: 'stock.csv row 4', key: '', notes: ['inventory tracking is off'] },
    ]);
    expect(body.applyCommand).toBe('mbulk apply X');

    // After an interrupted apply: each item's outcome, and the command that continues the run.
    const two = {
      ...plan,
      changes: [
        ...plan.changes,
        { ...plan.changes[0]!, itemId: 'inv_2', sku: 'TEE-L', rowNumber: 3, after: 0 },
      ],
    };
    const three = {
      ...two,
      changes: [...two.changes, { ...plan.changes[0]!, itemId: 'inv_3', sku: 'TEE-S', rowNumber: 5 }],
    };
    const applied = stockReview(
      { plan: three },
      {
        outcomes: {
          failedRows: [{ row: 3, code: 'not_found', message: 'no such item' }],
          pendingItems: ['inv_3'],
        },
      },
    );
    expect(applied.applyCommand).toBeUndefined();
    expect(applied.table!.rows.map((r) => r[5])).toEqual([
      'done',
      'failed: not_found: no such item',
      'pending (resume the run)',
    ]);
    const doc = parseHtml(
      renderReviewHtml(
        page({ ...applied, facts: [['Status', 'interrupted']], resumeCommand: 'mbulk runs resume R' }),
      ),
    );
    expect(tableRows(select(doc, 'table', 'rows')[0]!).map((r) => r[5])).toEqual([
      'done',
      'failed: not_found: no such item',
      'pending (resume the run)',
    ]);
    expect(text(select(doc, 'code').find((c) => attr(c, 'id') === 'resume-command')!)).toBe(
      'mbulk runs resume R',
    );
    expect(text(select(doc, 'p', 'headline')[0]!)).toMatch(/^Interrupted run/);
  });

  it('messages: the message each recipient gets, rendered', () => {
    const plan: MessagePlan = {
      kind: 'messages',
      template: { name: 'order_ready', status: 'APPROVED', language: 'en', parameters: ['name'] },
      sends: [
        { sheet: 'r.csv', rowNumber: 2, to: '60123456789', parameters: { name: '<b>Aina</b>' }, key: 'k' },
      ],
      duplicates: [],
      issues: [],
    };
    const body = messageReview({ plan, template: { body: 'Hi {{name}}, your order is ready.' } });
    expect(body.cards[0]).toMatchObject({
      action: 'send',
      name: '60123456789',
      preview: 'Hi <b>Aina</b>, your order is ready.',
    });
    const doc = parseHtml(renderReviewHtml(page({ ...body, cards: body.cards })));
    expect(text(select(doc, 'pre', 'preview')[0]!)).toBe('Hi <b>Aina</b>, your order is ready.');
    expect(select(doc, 'b')).toEqual([]);
  });
});

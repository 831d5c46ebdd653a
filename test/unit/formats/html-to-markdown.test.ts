import { describe, expect, it } from 'vitest';
import {
  descriptionToMarkdown,
  htmlToMarkdown,
  looksLikeHtml,
} from '../../../src/formats/html-to-markdown.js';
import { parseDescriptionCell } from '../../../src/sheets/markdown-cell.js';

const md = (html: string) => htmlToMarkdown(html).markdown;

describe('htmlToMarkdown: one construct at a time', () => {
  it('bold: <b> and <strong>', () => {
    expect(md('a <b>bold</b> and <strong>strong</strong> word')).toBe('a **bold** and **strong** word');
  });
  it('italic: <i> and <em>', () => {
    expect(md('<i>one</i> <em>two</em>')).toBe('_one_ _two_');
  });
  it('strike: <s>, <del>, <strike>', () => {
    expect(md('<s>a</s> <del>b</del> <strike>c</strike>')).toBe('~a~ ~b~ ~c~');
  });
  it('marks keep surrounding spaces outside and drop when empty', () => {
    expect(md('x<b> y </b>z<em></em>')).toBe('x **y** z');
  });
  it('links: http(s) only, other schemes keep their text', () => {
    expect(md('<a href="https://shop.example/a">Shop</a>')).toBe('[Shop](https://shop.example/a)');
    expect(
      md('<a href="javascript:alert(1)">click</a> <a href="/rel">rel</a> <a href="mailto:a@b">mail</a>'),
    ).toBe('click rel mail');
    expect(md('<a href="https://x.example/">https://x.example/</a>')).toBe('https://x.example/');
  });
  it('inline images with alt text; an image without an http(s) address is reported lost', () => {
    expect(htmlToMarkdown('<img src="https://cdn.example/a.jpg" alt="Red mug">')).toEqual({
      markdown: '![Red mug](https://cdn.example/a.jpg)',
      lost: [],
    });
    expect(htmlToMarkdown('<img src="data:image/png;base64,AAAA">').lost).toEqual([
      'image without an http(s) address',
    ]);
  });
  it('paragraphs become lines separated by a blank line', () => {
    expect(md('<p>One</p><p>Two</p>')).toBe('One\n\nTwo');
  });
  it('<br> is a line break', () => {
    expect(md('line one<br>line two<br/>three')).toBe('line one\nline two\nthree');
  });
  it('list items: one per line with a bullet, ordered or not', () => {
    expect(md('<ul><li>Cotton</li><li>Machine <b>washable</b></li></ul><ol><li>First</li></ol>')).toBe(
      '• Cotton\n• Machine **washable**\n\n• First',
    );
  });
  it('headings become a bold line', () => {
    expect(md('<h2>Details</h2><p>Soft</p>')).toBe('**Details**\n\nSoft');
  });
  it('table rows: cells joined with " | "', () => {
    expect(md('<table><tr><th>Size</th><th>Chest</th></tr><tr><td>S</td><td> 90 cm </td></tr></table>')).toBe(
      'Size | Chest\nS | 90 cm',
    );
  });
  it('a table nested in a cell is flattened like the outer one: its rows joined with "; ", no word lost', () => {
    const html =
      '<table><tr><th>Case</th><td><table><tr><td>Steel 316L</td><td>40 mm</td></tr><tr><td>Water resistance</td><td>100 m</td></tr></table></td></tr><tr><th>Strap</th><td>Leather</td></tr></table><p>After.</p>';
    expect(md(html)).toBe('Case | Steel 316L | 40 mm; Water resistance | 100 m\nStrap | Leather\n\nAfter.');
    const words = (t: string) =>
      t
        .replace(/<[^>]+>/g, ' ')
        .split(/[\s|;]+/)
        .filter(Boolean);
    expect(words(md(html))).toEqual(words(html));
  });
  it('entities are decoded', () => {
    expect(md('Fish &amp; chips &eacute;t&#233; &#x263A; &lt;3 &nbsp;x')).toBe('Fish & chips été ☺ <3 x');
  });
  it('script, style and iframe are dropped with their content; iframe and video are reported', () => {
    const r = htmlToMarkdown(
      '<p>Hi</p><script>alert("x")</script><style>p{color:red}</style><iframe src="https://v.example"></iframe><video><source src="a.mp4">fallback</video>',
    );
    expect(r.markdown).toBe('Hi');
    expect(r.lost).toEqual(['iframe', 'video']);
  });
  it('whitespace tidied: runs of spaces, newlines in source, blank lines', () => {
    expect(md('\n  <div>  a\n   b  </div>\n\n\n<div>c</div>  ')).toBe('a b\nc');
  });
  it('list items holding a block, and empty list items, leave no lone bullet line (tab markup)', () => {
    expect(md('<ul class="tabs"><li><div>Details</div></li><li></li><li><p>Care</p></li></ul>')).toBe(
      '• Details\n• Care',
    );
  });
  it('plain text passes through', () => {
    expect(md('Just words.')).toBe('Just words.');
    expect(looksLikeHtml('Just words.')).toBe(false);
    expect(looksLikeHtml('<p>x</p>')).toBe(true);
    expect(looksLikeHtml('a &amp; b')).toBe(true);
  });
});

/** A small seeded PRNG (mulberry32): the property test is reproducible. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TAGS = [
  'p',
  'div',
  'span',
  'b',
  'strong',
  'i',
  'em',
  's',
  'del',
  'a',
  'ul',
  'ol',
  'li',
  'h1',
  'h3',
  'table',
  'tr',
  'td',
  'th',
  'br',
  'img',
  'script',
  'style',
  'iframe',
  'video',
  'font',
  'center',
  'blockquote',
  'sup',
];
const WORDS = [
  '[x](javascript:alert(1))',
  '![y](data:text/html,z)',
  'https://a.example/](javascript:q)',
  'cotton',
  'Größe',
  '**',
  '_x_',
  '[1]',
  'https://a.example/x',
  '&amp;',
  '&eacute;',
  '  ',
  '\n',
  '価格',
  '5 > 3',
];

function randomHtml(next: () => number, depth: number): { html: string; tags: Set<string> } {
  const tags = new Set<string>();
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const build = (d: number): string => {
    let s = '';
    const n = 1 + Math.floor(next() * 4);
    for (let k = 0; k < n; k++) {
      if (d > 0 && next() < 0.6) {
        const tag = pick(TAGS);
        tags.add(tag);
        const attrs =
          tag === 'a'
            ? ` href="${pick(['https://x.example/p', 'javascript:void(0)', '/local', 'https://x.example/a)b'])}"`
            : tag === 'img'
              ? ` src="https://cdn.example/i.png" alt="${pick(WORDS)}"`
              : next() < 0.3
                ? ' style="color:red" class="x"'
                : '';
        s +=
          tag === 'br' || tag === 'img'
            ? `<${tag}${attrs}>`
            : `<${tag}${attrs}>${build(d - 1)}${next() < 0.9 ? `</${tag}>` : ''}`;
      } else s += pick(WORDS);
    }
    return s;
  };
  return { html: build(depth), tags };
}

describe('descriptions are safe in the Markdown subset (issue 22 point 7)', () => {
  it('Markdown link syntax to another scheme written as text keeps its label only, reported as lost', () => {
    const r = htmlToMarkdown(
      '<p>[md](javascript:alert(1)) and ![x](javascript:alert(2)) [ok](https://o.example)</p>',
    );
    expect(r.markdown).toBe('md and x \\[ok\\]\\(https://o.example\\)');
    expect(r.markdown).not.toContain('javascript:');
    expect(r.lost).toEqual(['a link to an address other than http(s) written as text (its label kept)']);
    expect(parseDescriptionCell(r.markdown).ok).toBe(true);
  });
  it('literal * _ ~ in text are escaped; the marks the converter writes are not', () => {
    expect(md('2*3*4 = 24, snake_case_name, ~approx~ <b>bold</b>')).toBe(
      '2\\*3\\*4 = 24, snake\\_case\\_name, \\~approx\\~ **bold**',
    );
  });
  it('bare URLs in text stay links; brackets in them are percent-encoded so they cannot close a link', () => {
    expect(md('see https://a.example/x_(y). Or https://b.example/](javascript:alert(1))')).toBe(
      'see https://a.example/x_%28y%29. Or https://b.example/%5D%28javascript:alert%281%29%29',
    );
  });
  it('a URL in parentheses ends before the closing one', () => {
    expect(md('(see https://a.example/x) and (https://b.example/p_(1))')).toBe(
      '\\(see https://a.example/x\\) and \\(https://b.example/p_%281%29\\)',
    );
  });
  it('link text and image alt text are escaped; href and src keep only http(s)', () => {
    expect(md('<a href="https://s.example/a">[Shop] *now*</a>')).toBe(
      '[\\[Shop\\] \\*now\\*](https://s.example/a)',
    );
    expect(md('<img alt="a_b" src="https://c.example/i(1).png">')).toBe(
      '![a\\_b](https://c.example/i%281%29.png)',
    );
    expect(md('<a href="JAVASCRIPT:alert(1)">x</a><a href=" vbscript:x">y</a><img src="javascript:z">')).toBe(
      'xy',
    );
  });
  it('entities split text into pieces: a URL with &amp; stays one URL', () => {
    expect(md('<p>https://a.example/?a=1&amp;b=2_c</p>')).toBe('https://a.example/?a=1&b=2_c');
  });
  it('a plain-text description keeps its line breaks and is escaped the same way', () => {
    expect(descriptionToMarkdown('Line *one*\n[two](javascript:alert(1)) (three)')).toEqual({
      markdown: 'Line \\*one\\*\ntwo \\(three\\)',
      lost: ['a link to an address other than http(s) written as text (its label kept)'],
    });
  });
});

describe('the own sheet: a description link or image must be http(s)', () => {
  it.each([
    ['[md](javascript:alert(1))', 'the link [md](javascript:…)'],
    ['![pic](data:image/png;base64,AA)', 'the image ![pic](data:…)'],
    ['[about](/about)', 'the link [about](/about)'],
    ['\\\\[x](vbscript:y)', 'the link [x](vbscript:…)'],
  ])('%s is an invalid cell naming it', (text, named) => {
    const r = parseDescriptionCell(text);
    expect(r).toMatchObject({ ok: false, code: 'unsafe_link' });
    expect(r.ok ? '' : r.message).toContain(named);
  });
  it('http(s) links and images, and escaped brackets, are fine', () => {
    for (const t of ['[a](https://x.example)', '![b](http://y.example/i.png "t")', '\\[c\\](javascript:x)'])
      expect(parseDescriptionCell(t)).toEqual({ ok: true, value: t });
  });
});

describe('htmlToMarkdown: property', () => {
  it('the output never holds a tag that was in the input, nor a link to anything but http(s) (2,000 random documents)', () => {
    const next = rng(20261123);
    for (let n = 0; n < 2000; n++) {
      const { html, tags } = randomHtml(next, 4);
      const { markdown } = htmlToMarkdown(html);
      for (const tag of tags) {
        const open = new RegExp(`</?${tag}[\\s>/]`, 'i');
        if (open.test(markdown))
          throw new Error(`tag <${tag}> survived\ninput: ${html}\noutput: ${markdown}`);
      }
      expect(markdown).not.toMatch(/<(script|style|iframe|video)/i);
      // Every link and image of the output goes to an http(s) address.
      const safe = parseDescriptionCell(markdown);
      if (!safe.ok) throw new Error(`${safe.message}\ninput: ${html}\noutput: ${markdown}`);
    }
  });
});

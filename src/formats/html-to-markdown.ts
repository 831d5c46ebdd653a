import { Parser } from 'htmlparser2';

/**
 * HTML product descriptions (Shopify `Body (HTML)`, WooCommerce `Description`) turned into the
 * small Markdown subset the Merchant API renders (docs/architecture.md, the API's rule 7):
 * `**bold**`, `_italic_`, `~strike~`, `[text](url)`, `![alt](url)`, bare URLs and line breaks. Headings, lists
 * and tables are not parsed by the service, so they become a bold line, `• item` lines and
 * `cell | cell` lines. Parsed with htmlparser2 (entities decoded by the parser), never regexes.
 *
 * Safe by construction: the only links and images in the output are the ones this converter
 * writes, from `href`/`src` addresses that are http(s). Text is escaped for the subset's syntax
 * (`\ [ ] ( ) * _ ~` get a backslash), so Markdown written as text stays text; link syntax to
 * another scheme written as text (`[x](javascript:alert(1))`) keeps only its label and is reported
 * as lost; bare http(s) URLs in text stay bare (the service links them) with `[ ] ( )`
 * percent-encoded.
 */
export interface HtmlConversion {
  markdown: string;
  /** What could not be carried over (`iframe`, `video`, `script`…), each once, in order seen. */
  lost: string[];
}

/** Dropped with their content. Scripts and styles are not content, so they are not "lost". */
const DROPPED_SILENTLY = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);
/** Dropped with their content, and reported: the storefront will not show them. */
const DROPPED_LOST = new Set([
  'iframe',
  'video',
  'audio',
  'object',
  'embed',
  'svg',
  'canvas',
  'form',
  'select',
]);
const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'header',
  'footer',
  'aside',
  'main',
  'nav',
  'blockquote',
  'pre',
  'figure',
  'figcaption',
  'address',
  'dl',
  'dt',
  'dd',
  'ul',
  'ol',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'caption',
  'hr',
  'center',
]);
const PARAGRAPHS = new Set([
  'p',
  'ul',
  'ol',
  'table',
  'blockquote',
  'pre',
  'figure',
  'dl',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
]);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const INLINE_MARKS: Record<string, string> = {
  b: '**',
  strong: '**',
  i: '_',
  em: '_',
  cite: '_',
  s: '~',
  strike: '~',
  del: '~',
};
const BULLET = '• ';
/** Ends a row of a table nested in a cell (the cell writes it as "; "). */
const ROW_IN_CELL = '\u0001';
const HTTP_URL = /^https?:\/\/\S+$/i;
/** A bare http(s) URL inside text (trailing sentence punctuation is not part of it). */
const TEXT_URL = /https?:\/\/[^\s<>"]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?'"]+$/;
/** Characters the Markdown subset gives a meaning to, and the backslash that escapes them. */
const MARKUP = /[\\[\]()*_~]/g;
const URL_BRACKETS = /[[\]()]/g;
/** Text holding anything escapeMarkdownText changes: a markup character or a URL. */
const PLAIN_CHECK = /[\\[\]()*_~]|https?:\/\//i;

function percentEncode(c: string): string {
  return `%${(c.codePointAt(0) as number).toString(16).toUpperCase()}`;
}

/**
 * Where a bare URL found in text ends: not on sentence punctuation, nor on a `)` that closes
 * something opened before the URL (`(see https://x.example)`), GFM's rule.
 */
function urlEnd(found: string): string {
  let url = found;
  for (;;) {
    const before = url;
    url = url.replace(TRAILING_PUNCTUATION, '');
    if (url.endsWith(')') && url.split('(').length < url.split(')').length) url = url.slice(0, -1);
    if (url === before) return url;
  }
}

/** Markdown link or image syntax written as text, `[label](target …)`: what a storefront would make live. */
const TEXT_LINK = /!?\[([^\]]*)\]\(\s*<?((?:[^\s()<>]|\([^\s()]*\))*)[^)\n]*\)?/g;
const HTTP_TARGET = /^https?:\/\//i;

/**
 * Text with every Markdown link or image written in it whose target is not http(s)
 * (`[x](javascript:alert(1))`) reduced to its label: such text would be a live link in some
 * renderer, and the address is never worth keeping. `dropped` says whether any was.
 */
function dropUnsafeLinkText(text: string): { text: string; dropped: boolean } {
  if (!text.includes('](')) return { text, dropped: false };
  let dropped = false;
  const out = text.replace(TEXT_LINK, (whole, label: string, target: string) => {
    if (HTTP_TARGET.test(target)) return whole;
    dropped = true;
    return label;
  });
  return { text: out, dropped };
}

/** What a description loses when Markdown link syntax to another scheme was written as text. */
const UNSAFE_LINK_TEXT = 'a link to an address other than http(s) written as text (its label kept)';

/**
 * Text as the Markdown subset shows it literally: markup characters escaped with a backslash, bare
 * http(s) URLs kept (the service links them) with `[ ] ( )` percent-encoded so that no URL can
 * close or open a link around itself.
 */
export function escapeMarkdownText(text: string): string {
  if (!PLAIN_CHECK.test(text)) return text; // most text has nothing to escape
  let out = '';
  let last = 0;
  for (const m of text.matchAll(TEXT_URL)) {
    const start = m.index;
    const url = urlEnd(m[0]);
    out += text.slice(last, start).replace(MARKUP, '\\$&');
    out += url.replace(URL_BRACKETS, percentEncode);
    last = start + url.length;
  }
  return out + text.slice(last).replace(MARKUP, '\\$&');
}

interface Frame {
  tag: string;
  /** Index into `out` where the element's content starts. */
  start: number;
  /** Markers around the content (bold, italic, strike, heading) or a link target. */
  mark?: string;
  href?: string;
}

/** Splits leading and trailing whitespace off a piece of text. */
function edges(text: string): { lead: string; inner: string; trail: string } {
  const inner = text.trim();
  if (inner === '') return { lead: text === '' ? '' : ' ', inner: '', trail: '' };
  const lead = /^\s/.test(text) ? ' ' : '';
  const trail = /\s$/.test(text) ? ' ' : '';
  return { lead, inner, trail };
}

/** Line tidying: trim each line, one space between words, at most one blank line in a row. */
function tidy(text: string): string {
  // One pass over the whole text (the class holds no line break, so lines stay apart).
  const lines = text.replace(/[ \t\f\v\u00a0]+/g, ' ').split('\n');
  for (let i = 0; i < lines.length; i++) lines[i] = (lines[i] as string).trim();
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

function safeUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const url = raw.trim().replace(/\s/g, '%20');
  return HTTP_URL.test(url) ? url.replace(URL_BRACKETS, percentEncode) : undefined;
}

/** Converts one HTML fragment. Plain text without tags passes through tidied. */
export function htmlToMarkdown(html: string): HtmlConversion {
  const out: string[] = [];
  const stack: Frame[] = [];
  const lost: string[] = [];
  let skipDepth = 0;
  let preDepth = 0;
  /** Row cells collected per open `tr` (a table nested in a cell opens rows of its own). */
  const rows: string[][] = [];
  /** Text seen since the last tag: the parser hands it over in pieces (entities apart). */
  let pending = '';

  const lose = (what: string) => {
    if (!lost.includes(what)) lost.push(what);
  };
  /** Ends the current line (and leaves a blank line after it when `blank`), never more than that. */
  const newline = (blank: boolean) => {
    // A block right inside a list item stays on the bullet's line (no lone "•" line).
    if (out[out.length - 1] === BULLET) return;
    let have = 0;
    for (let i = out.length - 1; i >= 0 && have < 2; i--) {
      const chunk = out[i] as string;
      let j = chunk.length - 1;
      while (j >= 0 && chunk[j] === '\n' && have < 2) {
        have++;
        j--;
      }
      if (j >= 0) break;
    }
    if (out.length === 0) return;
    const want = blank ? 2 : 1;
    if (have < want) out.push('\n'.repeat(want - have));
  };
  /** Writes the text seen since the last tag, escaped for the Markdown subset. */
  const flushText = () => {
    const { text, dropped } = dropUnsafeLinkText(pending);
    pending = '';
    if (dropped) lose(UNSAFE_LINK_TEXT);
    if (text === '') return;
    if (preDepth > 0) {
      out.push(escapeMarkdownText(text));
      return;
    }
    // Whitespace between blocks is layout, not a line of its own.
    if (text.trim() === '' && (out.length === 0 || (out[out.length - 1] ?? '').endsWith('\n'))) return;
    out.push(escapeMarkdownText(text.replace(/\s+/g, ' ')));
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        flushText();
        if (skipDepth > 0) {
          skipDepth++;
          return;
        }
        if (DROPPED_SILENTLY.has(name) || DROPPED_LOST.has(name)) {
          if (DROPPED_LOST.has(name)) lose(name);
          skipDepth = 1;
          return;
        }
        if (name === 'br') {
          out.push('\n');
          return;
        }
        if (name === 'img') {
          const src = safeUrl(attrs['src']);
          if (src === undefined) lose('image without an http(s) address');
          else out.push(`![${escapeMarkdownText((attrs['alt'] ?? '').replace(/\s+/g, ' ').trim())}](${src})`);
          return;
        }
        if (name === 'pre') preDepth++;
        if (PARAGRAPHS.has(name)) newline(true);
        else if (BLOCKS.has(name)) newline(false);
        if (name === 'li') {
          newline(false);
          out.push(BULLET);
        } else if (name === 'tr') {
          newline(false);
          rows.push([]);
        }
        const frame: Frame = { tag: name, start: out.length };
        const mark = INLINE_MARKS[name] ?? (HEADINGS.has(name) ? '**' : undefined);
        if (mark !== undefined) frame.mark = mark;
        if (name === 'a') {
          const href = safeUrl(attrs['href']);
          if (href !== undefined) frame.href = href;
        }
        stack.push(frame);
      },
      ontext(text) {
        if (skipDepth === 0) pending += text;
      },
      onclosetag(name, implied) {
        flushText();
        if (skipDepth > 0) {
          skipDepth--;
          return;
        }
        if (name === 'br' || name === 'img') return;
        // Close up to the matching frame (htmlparser2 reports implied closes in order).
        let index = -1;
        for (let i = stack.length - 1; i >= 0; i--) {
          if (stack[i]?.tag === name) {
            index = i;
            break;
          }
        }
        if (index < 0) return;
        const frame = stack[index] as Frame;
        stack.length = index;
        void implied;
        if (name === 'pre') preDepth--;
        if (frame.mark !== undefined || frame.href !== undefined) {
          const content = out.splice(frame.start).join('');
          const { lead, inner, trail } = edges(content);
          if (inner === '') {
            out.push(lead);
          } else if (frame.href !== undefined) {
            const text = inner.replace(/\n+/g, ' ');
            out.push(lead, text === frame.href ? text : `[${text}](${frame.href})`, trail);
          } else {
            out.push(lead, `${frame.mark}${inner}${frame.mark}`, trail);
          }
        }
        if (name === 'td' || name === 'th') {
          // The cell's own frame says where it starts: a table nested in it has been flattened
          // into its content already, and is kept as the cell's text.
          const content = tidy(out.splice(frame.start).join(''))
            .replaceAll(ROW_IN_CELL, '; ')
            .replace(/\n/g, ' ')
            .replace(/;\s*$/, '');
          const row = rows[rows.length - 1];
          if (row !== undefined) row.push(content);
          else out.push(content);
          return;
        }
        if (name === 'tr') {
          const row = rows.pop() ?? [];
          out.splice(frame.start);
          out.push(row.filter((c) => c !== '').join(' | '));
          // A row of a table nested in a cell: the cell joins its rows with "; ".
          if (rows.length > 0) out.push(ROW_IN_CELL);
          return;
        }
        // An empty list item leaves no bullet behind.
        if (name === 'li' && out[out.length - 1] === BULLET) out.pop();
        if (PARAGRAPHS.has(name)) newline(true);
        else if (BLOCKS.has(name)) newline(false);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  flushText();
  return { markdown: tidy(out.join('')), lost };
}

/** True when a cell looks like HTML (a tag or an entity), so plain text is left as it is. */
export function looksLikeHtml(text: string): boolean {
  return /<[a-z!/][^>]*>|&(?:[a-z]+|#\d+|#x[0-9a-f]+);/i.test(text);
}

/**
 * A platform export's description as the API's Markdown subset: HTML is converted, plain text is
 * kept as written (line breaks too) with its markup characters escaped, so that text in a platform
 * field never becomes a link, an image or emphasis it did not have there.
 */
export function descriptionToMarkdown(text: string): HtmlConversion {
  if (looksLikeHtml(text)) return htmlToMarkdown(text);
  const safe = dropUnsafeLinkText(text);
  return { markdown: escapeMarkdownText(safe.text), lost: safe.dropped ? [UNSAFE_LINK_TEXT] : [] };
}

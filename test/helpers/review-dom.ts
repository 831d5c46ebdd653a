import { DomUtils, parseDocument } from 'htmlparser2';

/** A parsed review page (htmlparser2, a real HTML parser) and small queries over it. */
export type Dom = ReturnType<typeof parseDocument>;
export type Element = ReturnType<typeof DomUtils.findAll>[number];

export function parseHtml(html: string): Dom {
  return parseDocument(html);
}

/** Elements named `tag` (any tag when '*') having every class in `classes`. */
export function select(root: Dom | Element, tag: string, ...classes: string[]): Element[] {
  return DomUtils.findAll(
    (e) => {
      if (tag !== '*' && e.name !== tag) return false;
      const own = (DomUtils.getAttributeValue(e, 'class') ?? '').split(/\s+/);
      return classes.every((c) => own.includes(c));
    },
    [root],
  );
}

export function attr(e: Element, name: string): string | undefined {
  return DomUtils.getAttributeValue(e, name);
}

export function text(e: Element): string {
  return DomUtils.textContent(e);
}

/** The cells of each body row of the tables under `root`, as text. */
export function tableRows(root: Element): string[][] {
  return select(root, 'tbody').flatMap((body) => select(body, 'tr').map((tr) => select(tr, 'td').map(text)));
}

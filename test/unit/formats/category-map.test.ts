import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCategoryMapFile } from '../../../src/formats/category-map.js';
import { suggestCategoryMap } from '../../../src/plan/category-plan.js';

const dir = mkdtempSync(join(tmpdir(), 'mbulk-category-map-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('--category-map FILE', () => {
  it('JSON (under "categories" or bare) and CSV read alike; names compared without case or spacing; several ids', () => {
    const json = readCategoryMapFile(
      file(
        'a.json',
        JSON.stringify({ categories: { 'Clothing  >Hoodies': 'cat_a', Music: ['cat_m', 'cat_s'] } }),
      ),
    );
    expect([...json]).toEqual([
      ['clothing > hoodies', ['cat_a']],
      ['music', ['cat_m', 'cat_s']],
    ]);
    const csv = readCategoryMapFile(
      file('a.csv', '\uFEFFsource,category_id\nClothing > Hoodies,cat_a\nMusic,cat_m|cat_s\n'),
    );
    expect([...csv]).toEqual([...json]);
  });

  it('an entry without an id, one name mapped twice, an empty map: refused naming the file and the entry', () => {
    expect(() => readCategoryMapFile(file('b.json', '{"categories": {"Music": ""}}'))).toThrow(
      /--category-map .*b\.json: "Music" needs a category id/,
    );
    expect(() => readCategoryMapFile(file('c.csv', 'source,id\nMusic,cat_m\nmusic,cat_x\n'))).toThrow(
      /"music" is mapped twice, to cat_m and to cat_x/,
    );
    expect(() => readCategoryMapFile(file('d.json', '{}'))).toThrow(/the map is empty/);
  });

  it("a map suggested by name: a source name (or its last level) whose letters are a store id's", () => {
    expect(
      suggestCategoryMap(['Clothing > Accessories', 'Best Sellers', 'Music'], {
        cat_accessories: 3,
        'cat_best-sellers': 2,
        cat_apparel: 6,
      }),
    ).toEqual({ 'Clothing > Accessories': 'cat_accessories', 'Best Sellers': 'cat_best-sellers' });
  });
});

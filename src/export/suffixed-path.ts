/** `orders.csv` + `-lines` → `orders-lines.csv` (the suffix goes before the extension). */
export function suffixedPath(path: string, suffix: string): string {
  const m = /(\.[^./\\]+)$/.exec(path);
  return m ? `${path.slice(0, -m[0].length)}${suffix}${m[0]}` : `${path}${suffix}`;
}

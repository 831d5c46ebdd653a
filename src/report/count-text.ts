/**
 * A count as people read it: `100,000`, the text `toLocaleString('en-US')` gives, made here for a
 * safe integer. The first toLocaleString of a process loads ICU's number formats (10-50 ms of CPU),
 * and a run's review page is written between the last page of the live read and the first write:
 * that load would sit on the run's critical path for a few counts.
 */
export function countText(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

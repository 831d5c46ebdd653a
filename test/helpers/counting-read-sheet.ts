import type * as ReadSheetModule from '../../src/sheets/read-sheet.js';

/**
 * read-sheet.js with every reader counting the rows it hands out into `counter`: for a
 * `vi.mock(…, async (importActual) => countingReadSheet(await importActual(), counter))`.
 */
export function countingReadSheet(
  actual: typeof ReadSheetModule,
  counter: { count: number },
): typeof ReadSheetModule {
  return {
    ...actual,
    readSheet: (...args: Parameters<typeof actual.readSheet>) => {
      const reader = actual.readSheet(...args);
      const batches = reader.batches.bind(reader);
      reader.batches = async function* () {
        for await (const batch of batches()) {
          counter.count += batch.length;
          yield batch;
        }
      };
      return reader;
    },
  };
}

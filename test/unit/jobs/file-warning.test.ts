import { expect, it } from 'vitest';
import { fileWarning } from '../../../src/jobs/job-events.js';

it('names the file once in a reader warning', () => {
  expect(fileWarning('/d/a.csv', '/d/a.csv is not valid UTF-8; read as Windows-1252')).toBe(
    '/d/a.csv is not valid UTF-8; read as Windows-1252',
  );
  expect(fileWarning('/d/a.csv', 'Row 5: 3 values beyond the last header column')).toBe(
    '/d/a.csv: Row 5: 3 values beyond the last header column',
  );
});

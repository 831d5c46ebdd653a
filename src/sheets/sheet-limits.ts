/** Safety limits of the readers. Every limit has a generous default and can be changed per call. */
export interface SheetLimits {
  /** Largest file accepted, in bytes. Default 2 GiB. */
  maxFileBytes: number;
  /** Most data rows read (the header is not counted). Default 5,000,000. */
  maxRows: number;
  /** Longest cell, in characters. Default 32,767 (Excel's own cell limit). */
  maxCellChars: number;
  /** Most cells in one row (header included). Default 16,384 (Excel's own column limit, XFD). */
  maxColumns: number;
  /**
   * XLSX shared strings: most bytes once inflated. Default 64 MiB. Every shared string is held in
   * memory while the sheet is read (cells refer to them by number): 63 MiB of 20-character strings
   * peaked at 469 MiB (`npm run bench hostile-files`), where 480 MiB took 35 s and 1.08 GB.
   */
  maxSharedStringsBytes: number;
  /** XLSX worksheet part (the sheet read): most bytes once inflated. Default 4 GiB. */
  maxSheetBytes: number;
  /** XLSX other parts read (styles, workbook, relationships): most bytes once inflated. Default 64 MiB. */
  maxPartBytes: number;
  /**
   * XLSX parts: highest inflated/compressed ratio, of the part and of every prefix of it past its
   * first MiB (a zip bomb inflates ~1000×; real parts 4-20×). Default 200.
   */
  maxInflateRatio: number;
}

export const DEFAULT_SHEET_LIMITS: Readonly<SheetLimits> = Object.freeze({
  maxFileBytes: 2 * 1024 * 1024 * 1024,
  maxRows: 5_000_000,
  maxCellChars: 32_767,
  maxColumns: 16_384,
  maxSharedStringsBytes: 64 * 1024 * 1024,
  maxSheetBytes: 4 * 1024 * 1024 * 1024,
  maxPartBytes: 64 * 1024 * 1024,
  maxInflateRatio: 200,
});

export function resolveSheetLimits(limits: Partial<SheetLimits> | undefined): SheetLimits {
  return { ...DEFAULT_SHEET_LIMITS, ...limits };
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

import type { ImageUpload } from './product-plan.js';

export interface ImageDiff {
  changed: boolean;
  /** The list to send when changed: stored URLs for known images, sheet URLs for new ones. */
  images: string[];
  uploads: ImageUpload[];
}

/**
 * Compares the sheet's image list with the live one without re-uploading unchanged images. A sheet
 * URL counts as the live image it names when it *is* a live stored URL, or when the image memory
 * (source URL → stored URL, remembered by the run store from earlier applies to this store) maps it
 * to a live stored URL. The lists compare in order; when they differ, the whole list is sent with
 * known images as their stored URLs (the service keeps those without fetching) and only the
 * unknown ones as sheet URLs (listed in `uploads`).
 *
 * With `keepLive` (what the plan uses unless `--replace images`), live images the sheet does not
 * list are kept: they follow the sheet's images in their live order (DESIGN safety rule 1). Without
 * it the sheet's list is the whole list.
 */
export function diffImages(
  desired: readonly string[],
  live: readonly string[],
  memory: ReadonlyMap<string, string>,
  options: { keepLive?: boolean } = {},
): ImageDiff {
  const liveSet = new Set(live);
  const images: string[] = [];
  const uploads: ImageUpload[] = [];
  for (let i = 0; i < desired.length; i++) {
    const url = (desired[i] as string).trim();
    if (liveSet.has(url)) {
      images.push(url);
      continue;
    }
    const stored = memory.get(url);
    if (stored !== undefined && liveSet.has(stored)) {
      images.push(stored);
      continue;
    }
    images.push(url);
    uploads.push({ index: i, source: url });
  }
  if (options.keepLive === true) {
    // Safety rule 1: live images the sheet does not list are kept, after the sheet's, in live order.
    const listed = new Set(images);
    for (const url of live) if (!listed.has(url)) images.push(url);
  }
  let changed = uploads.length > 0 || images.length !== live.length;
  for (let i = 0; !changed && i < images.length; i++) changed = images[i] !== live[i];
  return { changed, images, uploads };
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { expect } from 'vitest';

/** A Kubernetes manifest the project shows, and where: `samples/kubernetes/cron.yaml`, `docs/operations.md:120`. */
export interface Manifest {
  where: string;
  doc: { apiVersion: string; kind: string };
}

/** The manifests of a YAML text: its documents (each parsed without error) that have an apiVersion and a kind. */
function manifestsOf(text: string, where: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d) => {
      expect(d.errors, where).toEqual([]);
      return { where, doc: d.toJS() as Partial<Manifest['doc']> | null };
    })
    .filter(
      (m): m is Manifest =>
        m.doc !== null && typeof m.doc.apiVersion === 'string' && typeof m.doc.kind === 'string',
    );
}

/**
 * Every Kubernetes manifest the project shows under `root`: samples/kubernetes/*.yaml and each
 * ```yaml block of README.md and docs/*.md with an apiVersion and a kind.
 */
export function shownManifests(root: string): Manifest[] {
  const found: Manifest[] = [];
  const samples = join(root, 'samples', 'kubernetes');
  for (const file of readdirSync(samples).filter((f) => /\.ya?ml$/.test(f)))
    found.push(...manifestsOf(readFileSync(join(samples, file), 'utf8'), `samples/kubernetes/${file}`));
  const guides = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  for (const guide of guides) {
    const text = readFileSync(join(root, guide), 'utf8');
    for (const block of text.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
      const yaml = block[1] ?? '';
      if (!/^apiVersion:/m.test(yaml) || !/^kind:/m.test(yaml)) continue;
      const line = text.slice(0, block.index).split('\n').length;
      found.push(...manifestsOf(yaml, `${guide}:${line}`));
    }
  }
  return found;
}

import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type Manifest, shownManifests } from '../../helpers/kubernetes-manifests.js';

// The oldest Kubernetes the docs claim (1.29) and the next (1.30), for the manifests of the docs
// and samples, beside kubernetes-schema.test.ts (1.33 and the newest, from the API server's OpenAPI
// schema through kubernetes-models, which ships no release between 1.27 and 1.33). Here the types
// of `kubernetes-types` 1.29.0 and 1.30.0 (generated from each release's OpenAPI definitions: a
// required field is a required property, a field the release lacks an excess property) check each
// manifest as a typed object literal, compiled by TypeScript in memory. 1.31 and 1.32: no package
// ships their definitions; the fields the manifests use and their required fields are the same in
// 1.29, 1.30 and 1.33 (a pod condition's `status` required from 1.25 to 1.33), so they stand between.
const ROOT = resolve(import.meta.dirname, '../../..');
const RELEASES = ['1.29', '1.30'] as const;
/** Where kubernetes-types keeps a group version's types: the core group is `core/v1`. */
const typesPath = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion : `core/${apiVersion}`);

const parsed = new Map<string, ts.SourceFile>();

/** TypeScript's errors for `const m: Kind = manifest` per manifest, against one release's types. */
function typeErrors(release: string, manifests: readonly Manifest[]): string[] {
  const file = join(ROOT, `k8s-manifests-${release}.ts`);
  const source = manifests
    .map(
      ({ doc }, n) =>
        `import type { ${doc.kind} as K${n} } from 'kubernetes-types-${release}/${typesPath(doc.apiVersion)}';\n` +
        `export const m${n}: K${n} = ${JSON.stringify(doc, null, 1)};`,
    )
    .join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    types: [],
    lib: ['lib.es2022.d.ts'],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    if (name === file) return ts.createSourceFile(name, source, language);
    // The lib's and the packages' files are parsed once for every check.
    const cached = parsed.get(name) ?? read(name, language, ...rest);
    if (cached !== undefined) parsed.set(name, cached);
    return cached;
  };
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    // Name the manifest the error is in: the declaration of m<N> at or above the line.
    const upTo = source
      .split('\n')
      .slice(0, line + 1)
      .join('\n');
    const n = [...upTo.matchAll(/^export const m(\d+)/gm)].at(-1)?.[1];
    return `${n === undefined ? '?' : (manifests[Number(n)]?.where ?? '?')}: ${text}`;
  });
}

const manifests = shownManifests(ROOT);

describe('the Kubernetes manifests of the docs and samples, as typed by the oldest claimed releases', () => {
  it('include the fleet CronJob of the samples and the docs', () => {
    expect(manifests.map((m) => `${m.doc.kind} ${m.where.replace(/:\d+$/, '')}`)).toContain(
      'CronJob samples/kubernetes/fleet-cronjob.yaml',
    );
  });

  for (const release of RELEASES) {
    it(`type-check against Kubernetes ${release}'s definitions`, () => {
      expect(typeErrors(release, manifests)).toEqual([]);
    }, 60_000);
  }

  it('the 1.29 definitions refuse a pod condition without status, and a field 1.29 lacks (what the check is for)', () => {
    const cronJob = manifests.find((m) => m.doc.kind === 'CronJob' && m.where.startsWith('samples/'));
    expect(cronJob).toBeDefined();
    const doc = JSON.parse(JSON.stringify(cronJob?.doc)) as {
      spec: {
        jobTemplate: {
          spec: {
            managedBy?: string;
            podFailurePolicy: { rules: { onPodConditions?: { status?: string }[] }[] };
          };
        };
      };
    };
    const noStatus = structuredClone(doc);
    for (const r of noStatus.spec.jobTemplate.spec.podFailurePolicy.rules)
      for (const c of r.onPodConditions ?? []) delete c.status;
    expect(JSON.stringify(noStatus)).not.toBe(JSON.stringify(doc));
    const newer = structuredClone(doc);
    newer.spec.jobTemplate.spec.managedBy = 'kueue.x-k8s.io/multikueue'; // a field from Kubernetes 1.30 on
    const check = (release: string, changed: unknown) =>
      typeErrors(release, [{ where: 'changed', doc: changed as Manifest['doc'] }]).join('\n');
    expect(check('1.29', noStatus)).toMatch(/Property 'status' is missing/);
    expect(check('1.30', noStatus)).toMatch(/Property 'status' is missing/);
    expect(check('1.29', newer)).toMatch(/managedBy/);
    expect(check('1.30', newer)).toBe('');
  }, 60_000);
});

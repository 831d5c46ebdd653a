import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shownManifests } from '../../helpers/kubernetes-manifests.js';

// Every Kubernetes manifest the project shows (samples/kubernetes/*.yaml and each ```yaml block of
// README.md and docs/*.md with an apiVersion and a kind), checked against the API server's OpenAPI
// schema of the oldest and the newest Kubernetes the docs claim, as the API server would check them
// (types and required fields). The schemas come from the `kubernetes-models` package (its validators
// are compiled from each release's api/openapi-spec): 4.5.1 is Kubernetes v1.33.0, 5.1.0 the newest
// it ships. The docs claim Kubernetes >= 1.29 (backoffLimitPerIndex); from 1.25 to 1.33 a pod
// failure policy's onPodConditions entry requires `status` (kubernetes/kubernetes#131512, optional
// from 1.34). kubernetes-models ships no schema of 1.28-1.32: kubernetes-types.test.ts checks the
// same manifests against the type definitions of 1.29 and 1.30.
const ROOT = resolve(import.meta.dirname, '../../..');
const SCHEMAS = [
  { kubernetes: 'v1.33.0', pkg: 'kubernetes-models-1.33' },
  { kubernetes: 'newest', pkg: 'kubernetes-models' },
] as const;

/** The model of a manifest's kind in one schema package: `batch/v1` CronJob is `PKG/batch/v1/CronJob`. */
async function modelOf(
  pkg: string,
  apiVersion: string,
  kind: string,
): Promise<new (data: unknown) => { validate(): void }> {
  const module = (await import(`${pkg}/${apiVersion}/${kind}`)) as Record<string, unknown>;
  const model = module[kind];
  if (typeof model !== 'function') throw new Error(`${pkg} has no model for ${apiVersion} ${kind}`);
  return model as new (data: unknown) => { validate(): void };
}

const manifests = shownManifests(ROOT);

describe('the Kubernetes manifests of the docs and samples', () => {
  it('are found wherever the docs keep them (the fleet CronJob in the samples and in the docs)', () => {
    const kinds = manifests.map((m) => `${String(m.doc.kind)} ${m.where.replace(/:\d+$/, '')}`);
    expect(kinds).toContain('CronJob samples/kubernetes/fleet-cronjob.yaml');
    expect(
      kinds.filter((k) => k.startsWith('CronJob docs/') || k.startsWith('CronJob README')).length,
    ).toBeGreaterThanOrEqual(2);
  });

  for (const { kubernetes, pkg } of SCHEMAS) {
    it(`pass the API server's schema of Kubernetes ${kubernetes}`, async () => {
      const problems: string[] = [];
      for (const { where, doc } of manifests) {
        const Model = await modelOf(pkg, String(doc.apiVersion), String(doc.kind));
        try {
          new Model(doc).validate();
        } catch (error) {
          problems.push(`${where} ${String(doc.kind)}: ${(error as Error).message}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('the v1.33 schema refuses a pod condition without status (what the check is for)', async () => {
    const CronJob = await modelOf('kubernetes-models-1.33', 'batch/v1', 'CronJob');
    const job = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'x' },
      spec: {
        schedule: '15 2 * * *',
        jobTemplate: {
          spec: {
            podFailurePolicy: {
              rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }],
            },
            template: { spec: { restartPolicy: 'Never', containers: [{ name: 'mbulk', image: 'x' }] } },
          },
        },
      },
    };
    expect(() => new CronJob(job).validate()).toThrow(
      /onPodConditions\/0 must have required property status/,
    );
  });
});

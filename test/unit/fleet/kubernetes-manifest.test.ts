import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import yargs, { type Argv } from 'yargs';
import { describe, expect, it } from 'vitest';
import { checkImportOptions } from '../../../src/cli/check-import-options.js';
import type { CommandContext, GlobalArgs } from '../../../src/cli/command-context.js';
import { registerFleet } from '../../../src/cli/commands/fleet.js';
import { parseFleetFile } from '../../../src/fleet/fleet-file.js';

// samples/kubernetes/fleet-cronjob.yaml: docs/operations.md's way past one machine, a CronJob whose Job is
// Indexed, one pod per store of the same fleet file. Checked as Kubernetes and mbulk read it.
const ROOT = resolve(import.meta.dirname, '../../..');
const MANIFEST = readFileSync(join(ROOT, 'samples', 'kubernetes', 'fleet-cronjob.yaml'), 'utf8');

interface Container {
  command: string[];
  env: { name: string }[];
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  restartPolicy: string;
  containers: Container[];
  volumes: { name: string; configMap?: { name: string } }[];
}
interface JobSpec {
  completionMode: string;
  completions: number;
  parallelism: number;
  backoffLimitPerIndex: number;
  template: { spec: PodSpec };
}

const docs = parseAllDocuments(MANIFEST).map((d) => {
  expect(d.errors).toEqual([]);
  return d.toJS() as {
    apiVersion: string;
    kind: string;
    metadata: { name: string };
    spec?: unknown;
    data?: Record<string, string>;
  };
});
const configMap = docs.find((d) => d.kind === 'ConfigMap');
const cronJob = docs.find((d) => d.kind === 'CronJob') as
  { apiVersion: string; spec: { concurrencyPolicy: string; jobTemplate: { spec: JobSpec } } } | undefined;
const job = cronJob?.spec.jobTemplate.spec as JobSpec;
const pod = job.template.spec;
const container = pod.containers[0] as Container;

/** The mbulk command line of the pod, parsed by `mbulk fleet run`'s own options (strictly). */
function parseCommand(index: string): Record<string, unknown> {
  let parsed: Record<string, unknown> | undefined;
  let parser = yargs()
    .strict()
    .help(false)
    .version(false)
    .exitProcess(false)
    .option('json', { type: 'boolean' })
    .fail((message, error) => {
      throw error ?? new Error(message);
    })
    .middleware((argv) => {
      parsed = argv;
      throw new Error('parsed');
    }) as unknown as Argv<GlobalArgs>;
  parser = registerFleet(parser, {} as CommandContext, () => {});
  const args = container.command.slice(1).map((a) => (a === '$(JOB_COMPLETION_INDEX)' ? index : a));
  expect(() => parser.parseSync(args)).toThrow('parsed');
  return parsed ?? {};
}

describe('the Kubernetes fleet manifest', () => {
  it('is a ConfigMap holding a valid fleet file and a batch/v1 CronJob', () => {
    expect(docs.map((d) => d.kind)).toEqual(['ConfigMap', 'CronJob']);
    expect(cronJob?.apiVersion).toBe('batch/v1');
    expect(cronJob?.spec.concurrencyPolicy).toBe('Forbid');
  });

  const fleet = parseFleetFile(configMap?.data?.['stores.yaml'] ?? '', '/config/stores.yaml', {
    checkOptions: checkImportOptions,
  });

  it('runs an Indexed Job with one completion per store, each index failing alone', () => {
    expect(job.completionMode).toBe('Indexed');
    expect(job.completions).toBe(fleet.stores.length);
    expect(job.parallelism).toBeGreaterThanOrEqual(1);
    expect(job.parallelism).toBeLessThanOrEqual(job.completions);
    expect(job.backoffLimitPerIndex).toBe(0);
    expect(pod.restartPolicy).toBe('Never');
  });

  it("runs mbulk fleet run on the ConfigMap's file with --only-index $(JOB_COMPLETION_INDEX)", () => {
    expect(container.command.slice(0, 3)).toEqual(['mbulk', 'fleet', 'run']);
    const at = container.command.indexOf('--only-index');
    expect(container.command[at + 1]).toBe('$(JOB_COMPLETION_INDEX)');
    const parsed = parseCommand('2');
    expect(parsed['only-index']).toBe(2);
    const volume = pod.volumes.find((v) => v.configMap?.name === configMap?.metadata.name);
    const mount = container.volumeMounts.find((m) => m.name === volume?.name);
    expect(parsed['file']).toBe(`${mount?.mountPath}/stores.yaml`);
    expect(parsed['apply'] ?? fleet.apply).toBe(true);
  });

  it("gives the container every variable the file's stores name", () => {
    const names = container.env.map((e) => e.name);
    for (const store of fleet.stores) {
      if ('env' in store.token) expect(names).toContain(store.token.env);
      for (const header of store.headerEnv) expect(names).toContain(header);
    }
  });

  it('is shown in docs/operations.md as it is in samples/', () => {
    const guide = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    expect(guide).toContain(MANIFEST.slice(MANIFEST.indexOf('apiVersion:')).trim());
  });
});

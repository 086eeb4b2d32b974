/**
 * Parity for writes: the `commit.*.json` sequences and `q.commit.staged.json` of
 * test/fixtures/conformance/oracle-payloads (a copy of ../shared/conformance), each run in order on its own fresh library copy,
 * through a real MCP client. The quarantined sequence runs as the fixture's member, set
 * through the server's identity mechanism (its fallback caller, as a transport sets it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callerFor } from '../src/core/trust/registry.js';
import { parseYaml } from '../src/core/store/yaml.js';
import {
  CONFORMANCE_DIR,
  copyFixtureLibrary,
  normalise,
  oracle,
  resourceUri,
  tempDir,
  type ConformanceCase,
} from './helpers/fixtures.js';
import { callJson, linkedClient, readJsonResource, type LinkedClient } from './helpers/mcp.js';

interface Sequence {
  caller?: { agent_id: string; tier: string; grants: string[] };
  staged_manifest?: Record<string, unknown>;
  steps: ConformanceCase[];
}

const files = fs
  .readdirSync(path.join(CONFORMANCE_DIR, 'oracle-payloads'))
  .filter((name) => /^commit\..*\.json$/.test(name) || name === 'q.commit.staged.json')
  .sort();

describe('write sequences through a real MCP client', () => {
  const cleanup: string[] = [];
  afterEach(() => {
    for (const dir of cleanup.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds the commit sequences', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'commit.errors.json',
        'commit.merge_union.json',
        'commit.new_agent.json',
        'commit.replace.json',
        'q.commit.staged.json',
      ]),
    );
  });

  for (const file of files) {
    it(file, async () => {
      const sequence = oracle<Sequence>(file);
      const library = copyFixtureLibrary();
      const home = tempDir('bourdon-home-');
      cleanup.push(library, home);
      const env = { BOURDON_LOCAL_NAME: 'fixture-machine', BOURDON_HOME: home };
      const fallbackCaller = sequence.caller
        ? callerFor(sequence.caller.agent_id, {
            tier: sequence.caller.tier as 'quarantined',
            grants: sequence.caller.grants,
          })
        : undefined;
      const before = snapshotAgents(library);
      const linked: LinkedClient = await linkedClient(library, { env, ...(fallbackCaller ? { fallbackCaller } : {}) });
      try {
        for (const step of sequence.steps) {
          const raw =
            step.kind === 'tool'
              ? await callJson(linked.client, step.name, step.arguments)
              : await readJsonResource(linked.client, resourceUri(step.name, step.arguments));
          const { actual, expected } = normalise(step, raw, library);
          expect(actual, step.id).toEqual(expected);
        }
      } finally {
        await linked.close();
      }
      if (file === 'commit.errors.json' || file === 'commit.replace.json' || sequence.caller) {
        // Refused and staged writes leave the live library exactly as it was, with no history.
        expect(snapshotAgents(library)).toEqual(before);
        expect(fs.existsSync(path.join(library, 'history'))).toBe(false);
      }
      if (sequence.staged_manifest) {
        const staged = path.join(library, 'staging', sequence.caller!.agent_id, `${sequence.caller!.agent_id}.l5.yaml`);
        const doc = parseYaml(fs.readFileSync(staged, 'utf8')) as Record<string, unknown>;
        expect(doc.last_updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        expect({ ...doc, last_updated: '<volatile>' }).toEqual(sequence.staged_manifest);
      }
    });
  }
});

function snapshotAgents(library: string): Record<string, string> {
  const dir = path.join(library, 'agents');
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((name) => [name, fs.readFileSync(path.join(dir, name), 'utf8')]),
  );
}

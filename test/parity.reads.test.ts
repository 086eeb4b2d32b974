/**
 * Parity with the Python engine: every read case recorded in
 * test/fixtures/conformance/oracle-payloads (a copy of ../shared/conformance), reads.json over `library/` and
 * edge.json over the library it names (`library-edge/`), through a real MCP client.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseFile, copyFixtureLibrary, normalise, resourceUri } from './helpers/fixtures.js';
import { callJson, linkedClient, readJsonResource, type LinkedClient } from './helpers/mcp.js';

const FILES = [
  { file: 'reads.json', minimumCases: 40 },
  { file: 'edge.json', minimumCases: 30 },
];
const ENV = { BOURDON_LOCAL_NAME: 'fixture-machine' };

/**
 * parse_error texts are the parser's own words (PyYAML's there, the `yaml` package's
 * here): compared as "a non-empty message", see docs/conformance.md.
 */
function parserNeutral(payload: unknown): unknown {
  const envelope = payload as { agents?: { parse_error: unknown }[] };
  for (const agent of envelope.agents ?? []) {
    if (typeof agent.parse_error === 'string' && agent.parse_error.length > 0) agent.parse_error = '<parser message>';
  }
  return payload;
}

describe.each(FILES)('$file through a real MCP client', ({ file, minimumCases }) => {
  const { library: fixtureLibrary, cases } = caseFile(file);
  let library: string;
  let linked: LinkedClient;

  beforeAll(async () => {
    library = copyFixtureLibrary(fixtureLibrary);
    linked = await linkedClient(library, { env: ENV });
  });
  afterAll(async () => {
    await linked.close();
    fs.rmSync(library, { recursive: true, force: true });
  });

  it('has cases to run', () => {
    expect(cases.length).toBeGreaterThan(minimumCases);
  });

  for (const testCase of cases) {
    it(testCase.id, async () => {
      const raw =
        testCase.kind === 'tool'
          ? await callJson(linked.client, testCase.name, testCase.arguments)
          : await readJsonResource(linked.client, resourceUri(testCase.name, testCase.arguments));
      const { actual, expected } = normalise(testCase, raw, library);
      expect(parserNeutral(actual)).toEqual(parserNeutral(expected));
    });
  }
});

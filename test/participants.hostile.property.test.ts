/**
 * Hostile native files never crash or hang an export, and never lead it outside the home:
 * generated Markdown (malformed frontmatter, alias bombs, binary junk, CRLF), generated graph
 * lines, symbolic links out of the home, a FIFO where a note should be, and a line of 10 MB.
 * Each export must finish, serialise to YAML that reads back, and carry nothing from outside.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import { claudeCodeParticipant } from '../src/participants/claude-code/index.js';
import { mcpMemoryParticipant } from '../src/participants/mcp-memory/index.js';
import { finishManifest } from '../src/participants/finish.js';
import type { ExportEnvironment, Participant } from '../src/participants/kit/participant.js';
import { serialiseManifest } from '../src/core/writes/writes.js';
import { parseYaml } from '../src/core/store/yaml.js';
import { exportEnvironment } from './helpers/participant-cases.js';

const OUTSIDE = 'OUTSIDE-THE-HOME-SECRET';

function environment(home: string, env: Record<string, string> = {}): ExportEnvironment {
  return exportEnvironment(home, { env: { HOME: home, ...env }, hostname: 'prop-host' });
}

/** Runs an export the way the runner does, up to the bytes it would write; returns them. */
async function exportText(participant: Participant, env: ExportEnvironment): Promise<string> {
  const result = await participant.export(env);
  if (!result.manifest) return '';
  const { manifest } = finishManifest(result.manifest, 'team');
  const data = serialiseManifest(manifest);
  expect(parseYaml(data)).toBeTypeOf('object');
  return data.toString('utf8');
}

const junk = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc
    .tuple(fc.string({ maxLength: 80 }), fc.string({ maxLength: 200 }))
    .map(([front, body]) => `---\n${front}\n---\n${body}`),
  fc
    .tuple(fc.constantFrom('name', 'type', 'description', 'tags'), fc.jsonValue({ maxDepth: 2 }), fc.string())
    .map(([key, value, body]) => `---\n${key}: ${JSON.stringify(value)}\n---\n# ${body}\n\n${body}\r\n`),
  // An alias bomb in the frontmatter.
  fc.constant(
    '---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b]\nname: bomb\n---\nbody\n',
  ),
);

const graphLine = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc
    .record({
      type: fc.constant('entity'),
      name: fc.oneof(fc.string(), fc.integer()),
      entityType: fc.oneof(fc.string(), fc.constant('entity/person'), fc.integer()),
      observations: fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 4 }),
    })
    .map((record) => JSON.stringify(record)),
);

/** A home holding the generated files, with links and a FIFO pointing where they must not lead. */
function hostileHome(notes: string[], lines: string[]): string {
  const root = tempDir('bourdon-hostile-');
  const home = path.join(root, 'home');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(path.join(outside, 'project'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'secret.md'), `---\nname: ${OUTSIDE}\n---\n${OUTSIDE}\n`);
  fs.writeFileSync(path.join(outside, 'project', 'OVERVIEW.md'), `# ${OUTSIDE}\n\n${OUTSIDE}\n`);
  fs.writeFileSync(
    path.join(outside, 'graph.jsonl'),
    JSON.stringify({ type: 'entity', name: OUTSIDE, observations: [OUTSIDE] }),
  );
  const memory = path.join(home, '.claude', 'projects', '-p', 'memory');
  fs.mkdirSync(memory, { recursive: true });
  fs.writeFileSync(path.join(memory, 'MEMORY.md'), 'index\n');
  notes.forEach((text, index) => fs.writeFileSync(path.join(memory, `note${index}.md`), text));
  fs.symlinkSync(path.join(outside, 'secret.md'), path.join(memory, 'linked.md'));
  // A project folder whose memory/ itself leads out of the home.
  fs.mkdirSync(path.join(home, '.claude', 'projects', '-q'), { recursive: true });
  fs.symlinkSync(outside, path.join(home, '.claude', 'projects', '-q', 'memory'));
  fs.writeFileSync(path.join(outside, 'MEMORY.md'), 'index\n');
  const brain = path.join(home, 'claude-brain');
  fs.mkdirSync(path.join(brain, 'PROJECTS'), { recursive: true });
  fs.mkdirSync(path.join(brain, 'LOG'), { recursive: true });
  fs.symlinkSync(path.join(outside, 'project'), path.join(brain, 'PROJECTS', 'Linked'));
  fs.symlinkSync(path.join(outside, 'secret.md'), path.join(brain, 'LOG', '2026-04-01-linked.md'));
  notes.forEach((text, index) =>
    fs.writeFileSync(path.join(brain, 'LOG', `2026-04-0${(index % 9) + 1}-n${index}.md`), text),
  );
  execFileSync('mkfifo', [path.join(memory, 'fifo.md')]);
  fs.mkdirSync(path.join(home, 'claude-memory'));
  fs.writeFileSync(path.join(home, 'claude-memory', 'memory.jsonl'), lines.join('\n'));
  fs.mkdirSync(path.join(home, '.cursor'));
  fs.symlinkSync(path.join(outside, 'graph.jsonl'), path.join(home, 'mcp.jsonl'));
  return home;
}

describe('hostile native files', () => {
  it('claude-code: any notes, graph lines, links out of the home and a FIFO: no crash, no hang, nothing from outside', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(junk, { maxLength: 6 }),
        fc.array(graphLine, { maxLength: 20 }),
        async (notes, lines) => {
          const home = hostileHome(notes, lines);
          const text = await exportText(claudeCodeParticipant, environment(home));
          expect(text).not.toContain(OUTSIDE);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('mcp-memory: any graph lines; a graph linked from outside the home is not read unless named', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(graphLine, { maxLength: 30 }), async (lines) => {
        const home = hostileHome([], lines);
        const named = await exportText(
          mcpMemoryParticipant,
          environment(home, { MEMORY_FILE_PATH: path.join(home, 'claude-memory', 'memory.jsonl') }),
        );
        expect(named).not.toContain(OUTSIDE);
        // A config naming a link in the home that leads out of it: the link is not followed.
        const link = path.join(home, 'mcp.jsonl');
        fs.writeFileSync(
          path.join(home, '.cursor', 'mcp.json'),
          JSON.stringify({
            mcpServers: { m: { args: ['@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: link } } },
          }),
        );
        expect(await exportText(mcpMemoryParticipant, environment(home))).not.toContain(OUTSIDE);
      }),
      { numRuns: 30 },
    );
  }, 120_000);

  it('a graph line of 10 MB is skipped and the rest of the file is still read', async () => {
    const home = tempDir('bourdon-hostile-');
    fs.mkdirSync(path.join(home, 'claude-memory'));
    const huge = JSON.stringify({ type: 'entity', name: 'Huge', observations: ['x'.repeat(10 * 1024 * 1024)] });
    const small = JSON.stringify({ type: 'entity', name: 'Small', entityType: 'thing', observations: ['fine'] });
    fs.writeFileSync(path.join(home, 'claude-memory', 'memory.jsonl'), `${huge}\n${small}\n`);
    const result = await claudeCodeParticipant.export(environment(home));
    const names = (result.manifest?.known_entities as { name: string }[]).map((entity) => entity.name);
    expect(names).toEqual(['Small']);
    expect(result.warnings.join('\n')).toContain('longer than');
  });

  it('a memory note of 50 MB is read only up to the cap', async () => {
    const home = tempDir('bourdon-hostile-');
    const memory = path.join(home, '.claude', 'projects', '-p', 'memory');
    fs.mkdirSync(memory, { recursive: true });
    fs.writeFileSync(path.join(memory, 'MEMORY.md'), 'index\n');
    fs.writeFileSync(path.join(memory, 'big.md'), `# Big\n\n${'word '.repeat(10 * 1024 * 1024)}`);
    const result = await claudeCodeParticipant.export(environment(home));
    const [entity] = result.manifest?.known_entities as { name: string; summary: string }[];
    expect(entity.name).toBe('Big');
    expect(entity.summary.length).toBeLessThanOrEqual(500);
    expect(result.warnings.join('\n')).toContain('only the first');
  });
});

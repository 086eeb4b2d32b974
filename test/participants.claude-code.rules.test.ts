/**
 * The engine's claude_code rules on homes shaped differently from the recorded cases (issue 35):
 * a home with only a knowledge graph, whose entries have empty or blank names. Each home is real
 * files in a temp folder, exported as the runner does (filtered at `team`); the expected
 * manifests are worked out by hand from the engine's rules (docs/participants.md, "claude-code").
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeParticipant } from '../src/participants/claude-code/index.js';
import { finishManifest } from '../src/participants/finish.js';
import type { ManifestData } from '../src/participants/participant.js';
import { tempDir } from './helpers/fixtures.js';
import { exportEnvironment } from './helpers/participant-cases.js';

const POLICY = {
  default: 'public',
  private_tags: ['personal', 'financial', 'credential', 'health', 'family', 'legal'],
  team_tags: ['internal-roadmap'],
};

/** A home holding `files` (path relative to the home → text). */
function homeWith(files: Record<string, string>): string {
  const home = path.join(tempDir('bourdon-cc-rules-'), 'home');
  for (const [relative, text] of Object.entries(files)) {
    const file = path.join(home, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return home;
}

/** The manifest `bourdon claude-code export` would write for the home, without its narrative. */
async function exported(home: string): Promise<ManifestData> {
  const result = await claudeCodeParticipant.export(exportEnvironment(home));
  expect(result.manifest).toBeDefined();
  const { manifest } = finishManifest(result.manifest!, 'team');
  delete (manifest.agent as Record<string, unknown>).role_narrative;
  return manifest;
}

/** The engine's manifest for these capabilities, sessions and entities (its key order). */
function engineManifest(
  capabilities: string[],
  sessions: Record<string, unknown>[],
  entities: Record<string, unknown>[],
): ManifestData {
  const manifest: ManifestData = {
    spec_version: '0.1',
    agent: { id: 'claude-code', type: 'code-assistant', instance: 'h', spec_version_compat: '>=0.1' },
    last_updated: '2026-05-01T12:00:00+00:00',
    capabilities,
  };
  if (sessions.length) manifest.recent_sessions = sessions;
  if (entities.length) manifest.known_entities = entities;
  manifest.visibility_policy = POLICY;
  manifest.known_entities ??= [];
  manifest.recent_sessions ??= [];
  return manifest;
}

const graphLine = (name: string, entityType: string, observations: unknown[]) =>
  JSON.stringify({ type: 'entity', name, entityType, observations });

describe('claude-code: a home with only a knowledge graph', () => {
  it('has no entity for a name that is empty or strips to nothing', async () => {
    const home = homeWith({
      'claude-memory/memory.jsonl': [
        graphLine('Atlas', 'entity/project', ['Serves map tiles.', 'Written in Go.']),
        // The engine skips an entity without a name, and merges nothing under a blank one.
        graphLine('', 'project', ['An entity whose name is empty.']),
        graphLine('   ', 'project', ['An entity whose name is spaces.']),
        graphLine('\u3000\x1f', 'project', ['Whitespace only as Python strips it.']),
        JSON.stringify({ type: 'relation', from: 'Atlas', to: '', relationType: 'uses' }),
      ].join('\n'),
    });
    expect(await exported(home)).toEqual(
      engineManifest(
        ['knowledge_graph'],
        [],
        [{ name: 'Atlas', type: 'project', summary: 'Serves map tiles. | Written in Go.', tags: ['project'] }],
      ),
    );
  });

  it('a graph of nothing but nameless entities still publishes the capability, with no entity', async () => {
    const home = homeWith({
      'claude-memory/memory.jsonl': [graphLine('', 'project', ['x']), graphLine(' ', 'thing', ['y'])].join('\n'),
    });
    expect(await exported(home)).toEqual(engineManifest(['knowledge_graph'], [], []));
  });

  it('the same blank names from auto-memory are dropped too; a note named `.md` keeps that name', async () => {
    const memory = '.claude/projects/-p/memory/';
    const home = homeWith({
      [`${memory}MEMORY.md`]: 'index\n',
      [`${memory}blank.md`]: '---\nname: "  "\ndescription: A blank name.\n---\n',
      // Python's Path('.md').stem is '.md': the name the engine gives a note with no other.
      [`${memory}.md`]: 'A note whose file name is only the suffix.\n',
      'claude-memory/memory.jsonl': graphLine(' ', 'project', ['Blank in the graph too.']),
    });
    expect(await exported(home)).toEqual(
      engineManifest(
        ['auto_memory', 'knowledge_graph'],
        [],
        [{ name: '.md', summary: 'A note whose file name is only the suffix.' }],
      ),
    );
  });
});

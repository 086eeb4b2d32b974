/**
 * A push's render cache from before issue 50 (no `format`: rows rendered without their
 * manifest's visibility_policy) is not reused: the first push after upgrading renders every
 * manifest afresh, so a row the policy keeps off the level leaves the remote's head.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobId } from '../src/sync/git.js';
import { buildPublication, type RenderCache } from '../src/sync/publish.js';
import { tempDir } from './helpers/fixtures.js';

const MANIFEST = `spec_version: "0.1"
agent: {id: journal, type: note-capture}
visibility_policy: {default: team}
known_entities:
  - {name: Harbour, visibility: public}
  - {name: Lighthouse, summary: UNLABELLED_MARKER}
`;

describe('the render cache and the visibility policy', () => {
  it('a cache without the current format is rendered afresh; a current one is reused', () => {
    const agents = path.join(tempDir('privacy-render-cache-'), 'agents');
    fs.mkdirSync(agents);
    const file = path.join(agents, 'journal.l5.yaml');
    fs.writeFileSync(file, MANIFEST);
    const stat = fs.lstatSync(file);
    const key = `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`;
    // What an older push rendered (the unlabelled row at public), kept in its working area.
    const stale = Buffer.from('known_entities:\n  - name: "Lighthouse"\n    summary: "UNLABELLED_MARKER"\n');
    const entry = { key, id: 'journal', blob: blobId(stale), counts: { entities: 2, sessions: 0, notes: 0 } };
    const older = { level: 'public', files: { 'journal.l5.yaml': entry } } as RenderCache;
    const fresh = buildPublication(agents, 'public', older, () => stale);
    const [agent] = fresh.publication.agents;
    if (!agent) throw new Error('no agent published');
    const bytes = agent.bytes.toString('utf8');
    expect(bytes).not.toContain('UNLABELLED_MARKER');
    expect(bytes).toContain('Harbour');
    expect(fresh.cache.format).toBeDefined();
    // The cache a push of this version writes is reused while the file is unchanged.
    const again = buildPublication(agents, 'public', fresh.cache, () => agent.bytes);
    expect(again.publication.agents[0]?.blob).toBe(agent.blob);
  });
});

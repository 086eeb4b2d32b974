/**
 * The codex manifest: the agent, its policy and what was read, assembled by the kit (key order,
 * null and empty-list keys left out: the manifest's "absent vs empty" rule). No access filter is
 * applied here.
 */
import { assembleManifest as assemble, type Manifest, PRIVATE_TAGS, SPEC_VERSION } from '../kit/manifest-shape.js';
import type { Entity, Session } from './entities.js';

export const AGENT_ID = 'codex';
const ROLE_NARRATIVE =
  'Code assistant (OpenAI Codex CLI). Publishes the threads it worked on, the projects and topics ' +
  'they touched, and the preferences its memory distilled, so other agents can pick up where it left off.';

export interface ManifestInput {
  readonly hostname: string;
  readonly now: Date;
  readonly capabilities: readonly string[];
  readonly sessions: readonly Session[];
  readonly entities: readonly Entity[];
}

export function assembleManifest(input: ManifestInput): Manifest {
  return assemble({
    agent: {
      id: AGENT_ID,
      type: 'code-assistant',
      instance: input.hostname || 'unknown',
      spec_version_compat: `>=${SPEC_VERSION}`,
      role_narrative: ROLE_NARRATIVE,
    },
    now: input.now,
    capabilities: input.capabilities,
    sessions: input.sessions,
    entities: input.entities,
    policy: { default: 'team', private_tags: PRIVATE_TAGS, team_tags: ['codex-memory', 'workspace'] },
  });
}

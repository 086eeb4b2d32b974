/**
 * The codex manifest as plain data, in the engine's key order, with null and empty-list keys
 * left out (the manifest's "absent vs empty" rule). No access filter is applied here.
 */
import { PRIVATE_TAGS } from '../kit/manifest-shape.js';
import type { ManifestData } from '../kit/participant.js';
import type { Entity, Session } from './entities.js';

export const AGENT_ID = 'codex';
const SPEC_VERSION = '0.1';
const ROLE_NARRATIVE =
  'Code assistant (OpenAI Codex CLI). Publishes the threads it worked on, the projects and topics ' +
  'they touched, and the preferences its memory distilled, so other agents can pick up where it left off.';

const VISIBILITY_POLICY = {
  default: 'team',
  private_tags: [...PRIVATE_TAGS],
  team_tags: ['codex-memory', 'workspace'],
} as const;

/** `2026-05-01T12:00:00+00:00`: UTC, whole seconds. */
function formatInstant(now: Date): string {
  return `${now.toISOString().slice(0, 19)}+00:00`;
}

function entityData(entity: Entity): Record<string, unknown> {
  const out: Record<string, unknown> = { name: entity.name, type: entity.type };
  if (entity.aliases.length > 0) out.aliases = [...entity.aliases];
  if (entity.summary !== undefined) out.summary = entity.summary;
  if (entity.last_touched !== undefined) out.last_touched = entity.last_touched;
  if (entity.tags.length > 0) out.tags = [...entity.tags];
  out.visibility = entity.visibility;
  return out;
}

function sessionData(session: Session): Record<string, unknown> {
  const out: Record<string, unknown> = { date: session.date };
  if (session.cwd !== undefined) out.cwd = session.cwd;
  if (session.project_focus.length > 0) out.project_focus = [...session.project_focus];
  if (session.key_actions.length > 0) out.key_actions = [...session.key_actions];
  if (session.files_touched.length > 0) out.files_touched = [...session.files_touched];
  out.visibility = session.visibility;
  return out;
}

export interface ManifestInput {
  readonly hostname: string;
  readonly now: Date;
  readonly capabilities: readonly string[];
  readonly sessions: readonly Session[];
  readonly entities: readonly Entity[];
}

export function assembleManifest(input: ManifestInput): ManifestData {
  const manifest: ManifestData = {
    spec_version: SPEC_VERSION,
    agent: {
      id: AGENT_ID,
      type: 'code-assistant',
      instance: input.hostname || 'unknown',
      spec_version_compat: `>=${SPEC_VERSION}`,
      role_narrative: ROLE_NARRATIVE,
    },
    last_updated: formatInstant(input.now),
  };
  if (input.capabilities.length > 0) manifest.capabilities = [...input.capabilities];
  if (input.sessions.length > 0) manifest.recent_sessions = input.sessions.map(sessionData);
  if (input.entities.length > 0) manifest.known_entities = input.entities.map(entityData);
  manifest.visibility_policy = {
    default: VISIBILITY_POLICY.default,
    private_tags: [...VISIBILITY_POLICY.private_tags],
    team_tags: [...VISIBILITY_POLICY.team_tags],
  };
  return manifest;
}

/**
 * The participants this build knows, in the order `export-all` runs them and `doctor` lists
 * them, and their lookup by agent id or CLI topic.
 */
import { claudeCodeParticipant } from './claude-code/index.js';
import { mcpMemoryParticipant } from './mcp-memory/index.js';
import type { Participant } from './participant.js';

export const PARTICIPANTS: readonly Participant[] = [
  claudeCodeParticipant,
  // ── codex, cursor, copilot-cli: registered here, in this order, when they land ──
  // codexParticipant,
  // cursorParticipant,
  // copilotCliParticipant,
  // ──────────────────────────────────────────────────────────────────────────────
  mcpMemoryParticipant,
];

/** The participant publishing as `id` (an agent id or a CLI topic); undefined when none does. */
export function participantById(id: string): Participant | undefined {
  return PARTICIPANTS.find((participant) => participant.agentId === id || participant.topic === id);
}

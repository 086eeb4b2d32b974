/**
 * The participants this build knows, in the order `export-all` runs them and `doctor` lists
 * them, and their lookup by agent id or CLI topic.
 */
import {
  claudeCodeAutomationsParticipant,
  codexAutomationsParticipant,
  copilotAutomationsParticipant,
  cursorAutomationsParticipant,
} from './automations/index.js';
import { cascadeParticipant } from './cascade/index.js';
import { claudeCodeParticipant } from './claude-code/index.js';
import { claudeDesktopCodeParticipant } from './claude-desktop/code.js';
import { claudeDesktopCoworkParticipant } from './claude-desktop/cowork.js';
import { codexParticipant } from './codex/index.js';
import { copilotCliParticipant } from './copilot-cli/index.js';
import { copilotParticipant } from './copilot/index.js';
import { copilotVscodeParticipant } from './copilot-vscode/index.js';
import { cursorParticipant } from './cursor/index.js';
import { mcpMemoryParticipant } from './mcp-memory/index.js';
import { openclawParticipant } from './openclaw/index.js';
import type { Participant } from './kit/participant.js';

export const PARTICIPANTS: readonly Participant[] = [
  claudeCodeParticipant,
  codexParticipant,
  cursorParticipant,
  copilotCliParticipant,
  claudeCodeAutomationsParticipant,
  codexAutomationsParticipant,
  cursorAutomationsParticipant,
  copilotAutomationsParticipant,
  claudeDesktopCodeParticipant,
  claudeDesktopCoworkParticipant,
  mcpMemoryParticipant,
  openclawParticipant,
  cascadeParticipant,
  copilotParticipant,
  copilotVscodeParticipant,
];

/** The participant publishing as `id` (an agent id or a CLI topic); undefined when none does. */
export function participantById(id: string): Participant | undefined {
  return PARTICIPANTS.find((participant) => participant.agentId === id || participant.topic === id);
}

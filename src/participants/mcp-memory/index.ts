/** Placeholder until the mcp-memory participant is written (same commit series). */
import type { Participant } from '../participant.js';

export const mcpMemoryParticipant: Participant = {
  agentId: 'mcp-memory',
  topic: 'mcp-memory',
  async sources() {
    return [];
  },
  async export() {
    return { manifest: undefined, sources: [], warnings: [] };
  },
};

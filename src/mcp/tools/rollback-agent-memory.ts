import * as z from 'zod';
import { rollbackAgentMemory } from '../../core/writes/versions.js';
import { defineTool, optionalText, requiredInteger } from './common.js';

export const rollbackAgentMemoryTool = defineTool({
  name: 'rollback_agent_memory',
  description:
    "Restore an agent's manifest to an earlier version, byte for byte, recorded as a new version (op rollback). Trusted callers only; audited before it happens and refused when the audit record cannot be written.",
  schema: z.object({
    agent_id: z.string(),
    version: requiredInteger(),
    reason: optionalText.describe('Why: kept in the audit log.'),
  }),
  namespace: (args) => args.agent_id,
  run: rollbackAgentMemory,
});

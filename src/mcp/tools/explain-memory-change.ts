import * as z from 'zod';
import { explainMemoryChange } from '../../core/writes/versions.js';
import { defineTool, optionalInteger, requiredInteger } from './common.js';

export const explainMemoryChangeTool = defineTool({
  name: 'explain_memory_change',
  description:
    "What changed in an agent's manifest between two versions (default: the version before): entities, sessions and notes added, removed or changed, field by field, redacted. Never returns the raw file.",
  schema: z.object({
    agent_id: z.string(),
    version: requiredInteger(),
    against: optionalInteger('The version to compare with (default: the one before `version`).'),
  }),
  namespace: (args) => args.agent_id,
  run: explainMemoryChange,
});

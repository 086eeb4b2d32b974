import * as z from 'zod';
import { queryAgentMemory } from '../../core/operations/reads.js';
import { accessShape, defineTool } from './common.js';

export const queryAgentMemoryTool = defineTool({
  name: 'query_agent_memory',
  description: 'What one agent knows about a topic: the entity matches for `topic` that list `agent`.',
  schema: z.object({ agent: z.string(), topic: z.string(), ...accessShape('public') }),
  namespace: (args) => args.agent,
  run: queryAgentMemory,
});

import * as z from 'zod';
import { listMemoryVersions } from '../../core/writes/versions.js';
import { defineTool, optionalInteger } from './common.js';

export const listMemoryVersionsTool = defineTool({
  name: 'list_memory_versions',
  description:
    "The versions of an agent's manifest, newest first: every write this server or CLI made, plus edits other tools made in between (op external). Each with its time, op, actor, hash, size, row counts and whether it is the current one.",
  schema: z.object({
    agent_id: z.string(),
    limit: optionalInteger('How many versions, newest first (default 20, at most 1000).'),
  }),
  namespace: (args) => args.agent_id,
  run: listMemoryVersions,
});

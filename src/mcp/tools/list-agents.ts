import * as z from 'zod';
import { listAgents } from '../../core/operations/reads.js';
import { defineTool, federationHop } from './common.js';

export const listAgentsTool = defineTool({
  name: 'list_agents',
  description: 'The ids of every agent in the library (and on peers), sorted.',
  schema: z.object({ federation_hop: federationHop }),
  run: listAgents,
});

import * as z from 'zod';
import { getCrossAgentSummary } from '../../core/operations/reads.js';
import { accessShape, defineTool, federationHop } from './common.js';

export const getCrossAgentSummaryTool = defineTool({
  name: 'get_cross_agent_summary',
  description: 'Everything every agent has on a project: its entity matches and the sessions that focused on it.',
  schema: z.object({ project: z.string(), ...accessShape('public'), federation_hop: federationHop }),
  run: getCrossAgentSummary,
});

import * as z from 'zod';
import { listWorkstreams } from '../../core/operations/workstreams.js';
import {
  accessShape,
  agentFilterNamespace,
  defineTool,
  federationHop,
  optionalInteger,
  optionalText,
} from './common.js';

export const listWorkstreamsTool = defineTool({
  name: 'list_workstreams',
  description:
    'What is in flight: every project named in sessions and notes, across agents, with its agents, counts, first and last activity, status (active within 14 days, idle, or archived) and newest actions. Sorted by last activity, paged with cursors.',
  schema: z.object({
    since: optionalText.describe('Only workstreams active on or after this day (YYYY-MM-DD or an ISO datetime).'),
    agent: optionalText,
    status: optionalText.describe('active, idle or archived.'),
    ...accessShape('public'),
    limit: optionalInteger('Page size, 1 to 100 (default 20).'),
    cursor: optionalText,
    federation_hop: federationHop,
  }),
  namespace: agentFilterNamespace,
  denialExtras: { workstreams: [], next_cursor: null, has_more: false },
  run: listWorkstreams,
});

import * as z from 'zod';
import { listRecentWork } from '../../core/operations/reads.js';
import {
  accessShape,
  laxFlag,
  agentFilterNamespace,
  defineTool,
  federationHop,
  optionalInteger,
  optionalText,
} from './common.js';

export const listRecentWorkTool = defineTool({
  name: 'list_recent_work',
  description:
    'What happened recently: sessions since a day (default: the last 14 days), newest first, paged with cursors.',
  schema: z.object({
    since: optionalText.describe('YYYY-MM-DD or an ISO datetime; its calendar day as written.'),
    agent: optionalText,
    ...accessShape('public'),
    limit: optionalInteger('Page size, 1 to 100 (default 20).'),
    cursor: optionalText,
    summary: laxFlag(false, 'Drop key_actions and files_touched.'),
    federation_hop: federationHop,
  }),
  namespace: agentFilterNamespace,
  denialExtras: { sessions: [], next_cursor: null, has_more: false },
  run: listRecentWork,
});

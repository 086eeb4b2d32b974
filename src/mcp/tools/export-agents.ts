import * as z from 'zod';
import { exportAgents } from '../../core/operations/export.js';
import { defineTool } from './common.js';

export const exportAgentsTool = defineTool({
  name: 'export_agents',
  description:
    "This machine's agents as a redacted bourdon.agents/v1 envelope (never includes private sessions or peers).",
  schema: z.object({}),
  run: (ctx) => exportAgents(ctx),
});

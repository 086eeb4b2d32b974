import * as z from 'zod';
import { getDeeperContext } from '../../core/operations/reads.js';
import { accessShape, defineTool } from './common.js';

export const getDeeperContextTool = defineTool({
  name: 'get_deeper_context',
  description: 'Longer context from an L2 retriever. None is configured here, so the context is empty.',
  schema: z.object({ prompt: z.string(), ...accessShape('team') }),
  run: getDeeperContext,
});

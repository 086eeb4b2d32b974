import * as z from 'zod';
import { findEntity } from '../../core/operations/reads.js';
import { accessShape, defineTool, federationHop } from './common.js';

export const findEntityTool = defineTool({
  name: 'find_entity',
  description: 'Who knows about X: entities whose name or alias matches, case-insensitively, across every agent.',
  schema: z.object({ name: z.string(), ...accessShape('public'), federation_hop: federationHop }),
  run: findEntity,
});

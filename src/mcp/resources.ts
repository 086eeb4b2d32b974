/**
 * The three resources, under the same guard as the tools. Template variables arrive
 * URI-encoded; they are decoded here and validated by the core before any use.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { agentMemoryResource, agentsResource, entityResource } from '../core/operations/resources.js';
import type { CallEnvironment } from './call-environment.js';
import { guarded } from './register.js';

const JSON_MIME = 'application/json';
// Built once: HTTP builds a server per request, and parsing the URI templates each time is
// wasted work (a template holds no per-server state).
const AGENT_MEMORY = new ResourceTemplate('agent-library://agents/{agent_id}/memory', { list: undefined });
const ENTITY = new ResourceTemplate('agent-library://entities/{name}', { list: undefined });

function variable(value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // malformed escapes: pass through, the id check refuses them
  }
}

function contents(uri: URL, payload: unknown) {
  return { contents: [{ uri: uri.href, mimeType: JSON_MIME, text: JSON.stringify(payload) }] };
}

export function registerResources(server: McpServer, env: CallEnvironment): void {
  server.registerResource(
    'agents',
    'agent-library://agents',
    { title: 'Agents', description: 'The ids of every agent in the library.', mimeType: JSON_MIME },
    async (uri) =>
      contents(uri, await guarded(env, { op: 'resource:agents', namespace: '*' }, (ctx) => agentsResource(ctx))),
  );
  server.registerResource(
    'agent-memory',
    AGENT_MEMORY,
    { title: "An agent's memory", description: "One agent's manifest, public rows only.", mimeType: JSON_MIME },
    async (uri, variables) => {
      const agentId = variable(variables.agent_id);
      return contents(
        uri,
        await guarded(env, { op: 'resource:agent-memory', namespace: agentId }, (ctx) =>
          agentMemoryResource(ctx, agentId),
        ),
      );
    },
  );
  server.registerResource(
    'entity',
    ENTITY,
    { title: 'Entity matches', description: 'Entity matches for a name, public rows only.', mimeType: JSON_MIME },
    async (uri, variables) => {
      const name = variable(variables.name);
      return contents(
        uri,
        await guarded(env, { op: 'resource:entity', namespace: '*' }, (ctx) => entityResource(ctx, name)),
      );
    },
  );
}

import { it } from 'vitest';
import { callWithNotices, linkedFixtureClient } from './helpers/mcp.js';
import { callerFor } from '../src/core/trust/registry.js';
const linked = linkedFixtureClient();
const quarantined = linkedFixtureClient({ fallbackCaller: callerFor('visitor', { tier: 'quarantined', grants: [] }) });
it('probe', async () => {
  for (const since of ['last tuesday', '2026-13-45', 'garbage'])
    console.log(since, JSON.stringify(await callWithNotices(linked().client, 'list_recent_work', { since })).slice(0, 300));
  for (const [name, args] of [['list_recent_work', {}], ['find_entity', { name: 'x' }], ['list_agents', {}]] as const)
    console.log(name, JSON.stringify(await callWithNotices(quarantined().client, name, args)).slice(0, 300));
});

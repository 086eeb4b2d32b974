/**
 * The engine's number forms, through a real MCP client: `recognition_latency_us` is Python's
 * `round(latency_us, 1)` (microseconds to a tenth, a float, which `json.dumps` prints with its
 * `.0` when whole), and a commit's `last_updated` is `datetime.now().isoformat()` with real
 * microseconds, not milliseconds padded with `000`.
 */
import { describe, expect, it } from 'vitest';
import { payloadJson, withPythonFloats } from '../src/core/payload.js';
import { runCli } from './helpers/cli.js';
import { firstText, linkedFixtureClient } from './helpers/mcp.js';

describe('number forms as the engine writes them', () => {
  const linked = linkedFixtureClient();

  it('recognition_latency_us: microseconds to one decimal, not whole microseconds', async () => {
    const latencies: string[] = [];
    for (let i = 0; i < 20; i++) {
      const result = await linked().client.callTool({
        name: 'prepare_recognition_context',
        arguments: { prompt: 'can we keep working on Bourdon?' },
      });
      const text = firstText(result);
      latencies.push(/"recognition_latency_us":([^,}]+)/.exec(text)![1]!);
    }
    // Always one decimal, as Python prints a float: a whole latency is `412.0`, never `412`.
    for (const latency of latencies) expect(latency).toMatch(/^\d+\.\d$/);
    // A whole number of microseconds every time would be the old integer form (odds 1 in 10^20 otherwise).
    expect(latencies.some((latency) => latency.includes('.'))).toBe(true);
  });

  it('bourdon recognize --json prints the latency as the engine does', async () => {
    for (let i = 0; i < 10; i++) {
      const result = await runCli([
        'recognize',
        'can we keep working on Bourdon?',
        '--json',
        '--library',
        linked().library,
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/"recognition_latency_us": \d+\.\d,\n/);
    }
  });

  it('a whole float keeps its .0; integers elsewhere and strings naming the key are untouched', () => {
    const payload = {
      prompt: '"recognition_latency_us":7 in a prompt \\',
      matched_entities: [{ name: 'recognition_latency_us', count: 3 }],
      recognition_latency_us: 412,
      peers: { recognition_latency_us: -3 },
      hydration_scheduled: true,
    };
    const compact = payloadJson(payload);
    expect(compact).toBe(JSON.stringify(payload).replace(':412,', ':412.0,').replace(':-3}', ':-3.0}'));
    expect(JSON.parse(compact)).toEqual(payload);
    expect(payloadJson(payload, 2)).toContain('"recognition_latency_us": 412.0,\n');
    expect(payloadJson({ recognition_latency_us: 41.5 })).toBe('{"recognition_latency_us":41.5}');
    expect(payloadJson({ recognition_latency_us: 1e21 })).toBe('{"recognition_latency_us":1e+21}');
    // Only a text naming a float key is scanned, and the scan changes only whole numbers under one.
    const named = { note: 'see "recognition_latency_us": 7', recognition_latency_us: 4.5, n: 7 };
    expect(payloadJson(named)).toBe(JSON.stringify(named));
    expect(payloadJson(withPythonFloats({ score: 3, rank: 3 }, new Set(['score'])))).toBe('{"score":3.0,"rank":3}');
    expect(payloadJson({ score: 3, results: [] })).toBe('{"score":3,"results":[]}');
  });

  it('a commit stamps last_updated with real microseconds', async () => {
    const stamps: string[] = [];
    for (let i = 0; i < 5; i++) {
      const result = await linked().client.callTool({
        name: 'commit_to_federation',
        arguments: {
          agent_id: 'number-forms',
          agent_type: 'other',
          entities: [{ name: `Stamp ${i}`, type: 'concept' }],
        },
      });
      const payload = JSON.parse(firstText(result)) as { last_updated: string };
      stamps.push(payload.last_updated);
    }
    for (const stamp of stamps) expect(stamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/);
    // Milliseconds padded to six digits always end in 000 (odds 1 in 10^15 with real microseconds).
    expect(stamps.some((stamp) => /\.\d{3}(?!000)\d{3}\+/.test(stamp))).toBe(true);
  });
});

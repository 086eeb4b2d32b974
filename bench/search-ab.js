#!/usr/bin/env node
// Two builds' servers side by side on the same library, for a change to search: both started at
// once, one client each, and blocks of calls alternating between them — find_entity's, then
// search_memory's, on one server, then on the other, each build first in every other round, for
// --rounds rounds — so that a host whose speed drifts from one minute to the next (this one's
// does by 30 %: bench/README.md, "Fewer passes per search") moves both builds alike. Reported
// per build: the search_memory and find_entity medians over all rounds, their ratio, and the
// median of the rounds' own ratios.
// npm run bench:search-ab -- --before /other/checkout [--after .] [--sizes 50,1000] [--rounds 8] [--warm 2000] [--json]
// --warm: untimed calls of each tool on each server first (memory-server.js warmUp), as bench/search.js.
// (each checkout built with `npm run build`; the libraries are bench/search.js's).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateLibrary } from './generate.js';
import { flagReader, ROOT } from './lib.js';
import { connect, median, memoryFileFor, pass, queriesFor, warmUp } from './memory-server.js';

const flag = flagReader();
const BEFORE = flag('--before', '');
const AFTER = path.resolve(flag('--after', ROOT));
const ROUNDS = Number(flag('--rounds', '8'));
const WARM = Number(flag('--warm', '2000'));
const SIZES = flag('--sizes', '50,1000').split(',');
const FINDS = 33;
const SEARCHES = 66;
if (!BEFORE) {
  process.stderr.write('search-ab: name the build to compare with: --before /other/checkout\n');
  process.exit(2);
}
const LIBRARIES = { 50: { agents: 50 }, 1000: { agents: 1000, entities: 50, sessions: 20, notes: 5 } };

async function compare(label) {
  const library = path.join(ROOT, '.bench-data', `search-${label}`);
  if (!fs.existsSync(path.join(library, 'agents'))) generateLibrary(library, LIBRARIES[label]);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-search-ab-'));
  const builds = [];
  try {
    const { names } = await memoryFileFor(library, scratch);
    const queries = queriesFor(names);
    for (const [build, root] of [
      ['before', path.resolve(BEFORE)],
      ['after', AFTER],
    ]) {
      const home = fs.mkdtempSync(path.join(scratch, 'home-'));
      const server = await connect(
        build,
        process.execPath,
        [path.join(root, 'bin', 'run.js'), 'serve', '--library', library],
        {
          BOURDON_HOME: home,
          BOURDON_AUDIT_PATH: path.join(home, 'audit.jsonl'),
        },
      );
      builds.push({ build, root, server, finds: [], searches: [], ratios: [] });
    }
    // Both indexes built and the search compiled before the first timed call.
    for (const { server } of builds)
      await server.client.callTool({ name: 'search_memory', arguments: { query: queries[0] } });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const plans = [
      { tool: 'find_entity', argsFor: (name) => ({ name }), list: names },
      { tool: 'search_memory', argsFor: (query) => ({ query }), list: queries },
    ];
    for (const { server } of builds) await warmUp(server, plans, WARM);
    for (let round = 0; round < ROUNDS; round++)
      // Each build first in every other round: neither always runs after the other's calls.
      for (const entry of round % 2 ? [...builds].reverse() : builds) {
        const [find, search] = plans;
        const { samples: finds } = await pass(entry.server, find.tool, find.argsFor, find.list, FINDS);
        const { samples: searches } = await pass(entry.server, search.tool, search.argsFor, search.list, SEARCHES);
        entry.finds.push(...finds);
        entry.searches.push(...searches);
        entry.ratios.push(median(searches) / median(finds));
      }
    const round3 = (value) => Math.round(value * 1000) / 1000;
    return builds.map(({ build, root, finds, searches, ratios }) => ({
      library: label,
      build,
      root,
      search_memory_median_ms: round3(median(searches)),
      find_entity_median_ms: round3(median(finds)),
      search_over_find: round3(median(searches) / median(finds)),
      median_round_ratio: round3(median(ratios)),
      rounds: ROUNDS,
    }));
  } finally {
    for (const { server } of builds) await server.client.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

const results = [];
for (const label of SIZES) results.push(...(await compare(label)));
if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
else
  for (const r of results)
    process.stdout.write(
      `${r.library} agents, ${r.build} (${r.root}): search_memory ${r.search_memory_median_ms} ms vs find_entity ` +
        `${r.find_entity_median_ms} ms (${r.search_over_find}×; median round ${r.median_round_ratio}×)\n`,
    );

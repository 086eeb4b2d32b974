// One OS process making N commits through the `bourdon` CLI (oclif, in this process), for the
// concurrency test. Usage: node commit-worker.mjs <repoRoot> <library> <agent> <worker> <count> <inputDir>
import fs from 'node:fs';
import path from 'node:path';
import { run } from '@oclif/core';

const [repoRoot, library, agent, worker, countText, inputDir] = process.argv.slice(2);
const count = Number(countText);
for (let i = 0; i < count; i++) {
  const file = path.join(inputDir, `w${worker}-c${i}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      entities: [{ name: `w${worker}-c${i}`, type: 'concept', tags: [`worker-${worker}`] }],
      sessions: [
        {
          date: `2026-06-${String((i % 28) + 1).padStart(2, '0')}`,
          cwd: `/w${worker}/c${i}`,
          key_actions: [`commit ${i} of worker ${worker}`],
        },
      ],
    }),
  );
  try {
    await run(['commit', agent, '--file', file, '--agent-type', 'other', '--library', library, '--json'], repoRoot);
  } catch (error) {
    process.stderr.write(`worker ${worker} commit ${i} failed: ${error?.message ?? error}\n`);
    process.exit(1);
  }
}

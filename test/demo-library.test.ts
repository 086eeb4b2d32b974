/**
 * The demo library is written relative to the moment it is made: whenever `bourdon demo` runs,
 * no stamp in it (a manifest's `last_updated`, a version's time) is later than that moment, so
 * `history` and `recent` never show the demo's work as happening later today.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { installDemoLibrary } from '../src/core/admin/demo-library.js';
import { parseYamlMapping } from '../src/core/store/yaml.js';
import { demoLibrary } from './helpers/demo.js';
import { tempDir } from './helpers/fixtures.js';

function lastUpdated(library: string): Map<string, number> {
  const agents = path.join(library, 'agents');
  const stamps = new Map<string, number>();
  for (const file of fs.readdirSync(agents)) {
    const manifest = parseYamlMapping(fs.readFileSync(path.join(agents, file), 'utf8'));
    stamps.set(file, Date.parse(String(manifest?.last_updated)));
  }
  return stamps;
}

describe('the demo library', () => {
  it('made just after midnight, holds no last_updated later than that moment', () => {
    const now = new Date();
    now.setHours(0, 20, 0, 0);
    const stamps = lastUpdated(installDemoLibrary(tempDir('bourdon-demo-early-'), now));
    expect(stamps.size).toBeGreaterThan(3);
    for (const [file, stamp] of stamps) {
      expect(Number.isNaN(stamp), file).toBe(false);
      expect(stamp, file).toBeLessThanOrEqual(now.getTime());
    }
  });

  it('as the binary builds it, its history has no version later than now', async () => {
    const { library } = await demoLibrary('bourdon-demo-history');
    const made = Date.now();
    const history = path.join(library, 'history');
    for (const agent of fs.readdirSync(history)) {
      const index = fs
        .readFileSync(path.join(history, agent, 'index.jsonl'), 'utf8')
        .trimEnd()
        .split('\n');
      for (const line of index)
        expect(Date.parse((JSON.parse(line) as { ts: string }).ts), line).toBeLessThanOrEqual(made);
    }
  });
});

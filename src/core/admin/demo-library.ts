/**
 * The built-in demo library: invented agents working on an invented app. Its dates are
 * written relative to today (`__DAY-N__` = N days ago) so recent-work queries always find
 * something, whenever the demo runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { localDay } from '../store/dates.js';
import { packageRoot } from '../package-root.js';

/** The demo library as shipped (demo/library in the package). */
function demoLibrarySource(): string {
  return path.join(packageRoot(), 'demo', 'library');
}

export function installDemoLibrary(target: string, now = new Date()): string {
  const agentsDir = path.join(target, 'agents');
  fs.mkdirSync(agentsDir, { recursive: true });
  for (const file of fs.readdirSync(path.join(demoLibrarySource(), 'agents'))) {
    const text = fs.readFileSync(path.join(demoLibrarySource(), 'agents', file), 'utf8');
    const dated = text.replace(/__DAY-(\d+)__/g, (_, days: string) =>
      localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - Number(days))),
    );
    fs.writeFileSync(path.join(agentsDir, file), dated);
  }
  return target;
}

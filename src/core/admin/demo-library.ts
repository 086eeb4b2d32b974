/**
 * The built-in demo library: invented agents working on an invented app. Its dates are
 * written relative to today (`__DAY-N__` = N days ago) so recent-work queries always find
 * something, whenever the demo runs. The shipped files are templates (`demo/templates/*.l5.yaml.in`,
 * no `agents/` folder) so that nobody points `--library` at them by mistake and sees a library
 * whose every date is unreadable; `bourdon demo --keep` gives a real copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { localDay } from '../store/dates.js';
import { packageRoot } from '../package-root.js';

/** The demo manifests as shipped (demo/templates in the package), one `<agent>.l5.yaml.in` each. */
function demoTemplates(): string {
  return path.join(packageRoot(), 'demo', 'templates');
}

const TEMPLATE_SUFFIX = '.in';

export function installDemoLibrary(target: string, now = new Date()): string {
  const agentsDir = path.join(target, 'agents');
  fs.mkdirSync(agentsDir, { recursive: true });
  for (const file of fs.readdirSync(demoTemplates())) {
    if (!file.endsWith('.l5.yaml' + TEMPLATE_SUFFIX)) continue;
    const text = fs.readFileSync(path.join(demoTemplates(), file), 'utf8');
    const dated = text.replace(/__DAY-(\d+)__/g, (_, days: string) =>
      localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - Number(days))),
    );
    fs.writeFileSync(path.join(agentsDir, file.slice(0, -TEMPLATE_SUFFIX.length)), dated);
  }
  return target;
}

/**
 * `bourdon doctor`'s watch line: whether the per-user service is installed (and for this
 * library), whether a watch is running on the library (as the service or in a terminal), when it
 * last exported, the agents it could not export, a sync failure it is retrying, and its log.
 */
import path from 'node:path';
import type { Env } from '../core/store/config.js';
import { watchState } from '../core/store/watch-status.js';

export interface WatchCheck {
  id: 'watch';
  title: string;
  verdict: 'ok' | 'info' | 'warn';
  summary: string;
  details: string[];
}

export function watchDoctorCheck(libraryRoot: string, env: Env): WatchCheck {
  const state = watchState(libraryRoot, env);
  const check = (verdict: WatchCheck['verdict'], summary: string, details: string[] = []): WatchCheck => ({
    id: 'watch',
    title: 'watch',
    verdict,
    summary,
    details,
  });
  const service = state.service;
  const kind = service?.manager === 'launchd' ? 'launchd agent' : 'systemd user unit';
  const forThis =
    service?.installed && service.library !== null && path.resolve(service.library) === path.resolve(libraryRoot);
  const details: string[] = [];
  if (service?.installed)
    details.push(`service: ${kind} ${service.file}${forThis ? '' : ` (for ${service.library ?? 'another library'})`}`);
  if (service?.installed)
    details.push(`log: ${service.log}${state.lastLogLine ? ` — last: ${state.lastLogLine}` : ''}`);
  const last = state.lastExport ? `last export: ${state.lastExport.agent} at ${state.lastExport.at}` : 'no export yet';
  const failing = Object.entries(state.status?.agents ?? {})
    .filter(([, record]) => record.outcome === 'failed')
    .map(([agent, record]) => `${agent} failed at ${record.at}: ${record.detail}`);
  details.push(...failing);
  if (state.status?.sync?.problem) details.push(`sync: retrying after ${state.status.sync.problem}`);
  if (state.running) {
    const who = `running (pid ${state.status!.pid}, since ${state.status!.started})`;
    const how = forThis
      ? `the ${kind} is installed and ${who}`
      : `${who} in a terminal; no service for this library (\`bourdon watch --install\`)`;
    return check(failing.length ? 'warn' : 'ok', `${how}; ${last}`, details);
  }
  if (forThis) return check('warn', `the ${kind} is installed but not running; ${last}; see its log`, details);
  return check(
    'info',
    `not running; \`bourdon watch\` keeps the library current (\`--install\` starts it at login)${state.lastExport ? `; ${last}` : ''}`,
    details,
  );
}

/**
 * The one place manifests are parsed and serialised, so the parser can be swapped by
 * measurement without touching the domain. Reading uses the YAML 1.2 core schema only (no
 * custom tags, dates stay strings); writing quotes anything YAML 1.1 would read as a
 * non-string (dates, yes/no), so the Python engine (PyYAML, YAML 1.1) reads our files as we do.
 */
import YAML from 'yaml';

/** Alias expansion cap: a YAML "billion laughs" document fails instead of eating memory. */
const MAX_ALIAS_COUNT = 100;

export function parseYaml(text: string): unknown {
  return YAML.parse(text, { schema: 'core', maxAliasCount: MAX_ALIAS_COUNT, uniqueKeys: true });
}

export function stringifyYaml(value: unknown): string {
  return YAML.stringify(value, { version: '1.1', singleQuote: true, lineWidth: 0 });
}

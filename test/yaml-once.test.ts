/**
 * Issue 42 item 5: YAML is read in one place. src/core/store/yaml.ts is the only source file
 * that imports or requires a YAML package (`yaml`, `js-yaml`); everything else, the
 * participants' front matter included, goes through its readers, so how the engine's PyYAML
 * is matched is decided once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/fixtures.js';

const THE_YAML_MODULE = 'src/core/store/yaml.ts';

/** A static import, a re-export, a `require` or a dynamic `import()` of `yaml` or `js-yaml` (or a subpath). */
const YAML_PACKAGE =
  /(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)(['"`])(?:js-)?yaml(?:\/[^'"`]*)?\1/m;

function loadsYamlPackage(source: string): boolean {
  return source.split('\n').some((line) => YAML_PACKAGE.test(line));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(?:ts|mts|cts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

describe('one YAML module: only src/core/store/yaml.ts loads a YAML package', () => {
  it('the scan finds the forms it looks for', () => {
    expect(loadsYamlPackage("import type * as YamlPackage from 'yaml';")).toBe(true);
    expect(loadsYamlPackage('import { load } from "js-yaml";')).toBe(true);
    expect(loadsYamlPackage("import 'yaml';")).toBe(true);
    expect(loadsYamlPackage("export { parse } from 'yaml';")).toBe(true);
    expect(loadsYamlPackage("const y = require('yaml') as typeof Y;")).toBe(true);
    expect(loadsYamlPackage("const y = require( 'js-yaml' );")).toBe(true);
    expect(loadsYamlPackage("const y = await import('yaml');")).toBe(true);
    expect(loadsYamlPackage("import { Parser } from 'yaml/parse';")).toBe(true);
    expect(loadsYamlPackage("import { parseYamlMapping } from '../store/yaml.js';")).toBe(false);
    expect(loadsYamlPackage("import { escapeForPyYaml } from './yaml-write.js';")).toBe(false);
    expect(loadsYamlPackage("const file = 'federation.yaml';")).toBe(false);
  });

  it('holds for every source file, and the one module is found by it', () => {
    const loaders = sourceFiles(path.join(REPO_ROOT, 'src'))
      .filter((file) => loadsYamlPackage(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(REPO_ROOT, file).split(path.sep).join('/'));
    expect(loaders).toEqual([THE_YAML_MODULE]);
  });
});

#!/usr/bin/env node
// Replaces test/fixtures/conformance and test/fixtures/search with ../shared/conformance and
// ../shared/search (or under $BOURDON_SHARED_DIR), so the copies the tests read are the ones the
// steering repo published.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = process.env.BOURDON_SHARED_DIR ?? path.resolve(root, '..', 'shared');
// The shared folder is read-only in CI; the copy must stay writable for the next sync.
const makeWritable = (dir) => {
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(full);
    else fs.chmodSync(full, 0o644);
  }
};

for (const name of ['conformance', 'search']) {
  const source = path.join(shared, name);
  const target = path.join(root, 'test', 'fixtures', name);
  if (!fs.existsSync(source)) {
    console.error(`fixtures:sync: ${source} does not exist; nothing to copy from.`);
    process.exit(1);
  }
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(source, target, { recursive: true });
  makeWritable(target);
  console.log(`fixtures:sync: copied ${source} to ${path.relative(root, target)}`);
}

#!/usr/bin/env node
// What redaction costs on the largest export (issue 41, item 2): the rows of the largest
// claude-code export (1,000 auto-memory notes, 100 brain projects and logs, and the newest
// 5,000 entities of a knowledge graph, shaped as bench/participants.js generates them), run
// through the export runner's finishing step (filters, caps and the secret-value redaction,
// src/participants/finish.ts) with and without secrets planted, and through redactSecrets alone.
// Median of 5 (after `npm run build`). `--json` for machines.
import os from 'node:os';
import { finishManifest } from '../dist/participants/finish.js';
import { redactSecrets } from '../dist/core/trust/redaction.js';

const RUNS = 5;
const asJson = process.argv.includes('--json');
const words = (n, seed) => Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');
const SECRETS = [
  'postgres://admin:S3cretPw@db.example.com:5432/app',
  'OPENAI_API_KEY=sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789',
  'token: 3f2a9c1b7d8e4f6a0b1c2d3e4f5a6b7c',
  'curl -u admin:hunter2 https://api.example.com',
];

function manifest(withSecrets) {
  const entities = [];
  for (let n = 0; n < 1_000; n += 1)
    entities.push({ name: `Topic ${n}`, type: 'project', summary: words(60, n), tags: [`t${n % 10}`, 'bench'] });
  for (let n = 0; n < 100; n += 1) entities.push({ name: `Project ${n}`, type: 'project', summary: words(80, n) });
  for (let n = 0; n < 5_000; n += 1)
    entities.push({
      name: `Entity ${n}`,
      type: 'thing',
      summary: `${words(12, n)} | ${words(30, n + 1)}`.slice(0, 500),
    });
  const sessions = Array.from({ length: 100 }, (_, n) => ({
    date: `2026-04-${String((n % 28) + 1).padStart(2, '0')}`,
    key_actions: [words(40, n).slice(0, 250)],
    files_touched: [`LOG/2026-04-${n}.md`],
  }));
  if (withSecrets)
    entities.forEach((entity, n) => n % 50 === 0 && (entity.summary += ` ${SECRETS[n % SECRETS.length]}`));
  return { spec_version: '0.1', agent: { id: 'bench' }, known_entities: entities, recent_sessions: sessions };
}

function texts(doc) {
  const out = [];
  for (const row of [...doc.known_entities, ...doc.recent_sessions])
    for (const value of Object.values(row))
      for (const item of [value].flat()) if (typeof item === 'string') out.push(item);
  return out;
}

function median(fn) {
  const times = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return Math.round(times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]);
}

const clean = manifest(false);
const leaky = manifest(true);
const all = texts(clean);
const chars = all.reduce((sum, text) => sum + text.length, 0);
const results = {
  rows: clean.known_entities.length + clean.recent_sessions.length,
  texts: all.length,
  megabytes: +(chars / 1024 / 1024).toFixed(1),
  finish_ms: median(() => finishManifest(clean, 'team')),
  finish_with_secrets_ms: median(() => finishManifest(leaky, 'team')),
  redact_only_ms: median(() => all.forEach((text) => redactSecrets(text))),
};
results.per_text_us = +((results.redact_only_ms * 1000) / all.length).toFixed(1);
const load = os.loadavg()[0].toFixed(1);
if (asJson) process.stdout.write(JSON.stringify({ load, ...results }, null, 2) + '\n');
else {
  process.stdout.write(
    `load average ${load}; ${results.rows} rows, ${results.texts} texts, ${results.megabytes} MB of text\n`,
  );
  process.stdout.write(`finishManifest (filters, caps, redaction): ${results.finish_ms} ms\n`);
  process.stdout.write(`  the same with a secret in every 50th row: ${results.finish_with_secrets_ms} ms\n`);
  process.stdout.write(
    `redactSecrets alone over every text: ${results.redact_only_ms} ms (${results.per_text_us} µs a text)\n`,
  );
}

#!/usr/bin/env node
// The `bourdon` CLI. Commands load lazily from oclif.manifest.json, so start-up stays fast.
import { execute, settings } from '@oclif/core';

// Commands always load from the compiled dist/, whatever NODE_ENV says (no TS loader ships).
settings.enableAutoTranspile = false;

await execute({ dir: import.meta.url });

#!/usr/bin/env node
// The `bourdon` CLI. Commands load lazily from oclif.manifest.json, so start-up stays fast.
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url });

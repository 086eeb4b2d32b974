#!/usr/bin/env node
// A bare one-command oclif CLI: the start-up floor `bourdon --version` is compared against.
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url });

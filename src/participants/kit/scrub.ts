/**
 * The engine's native-memory scrubber and the Python text semantics it relies on. It lives in
 * core (`src/core/native/scrub.ts`) because the Codex turn compiler, an operation, cleans its
 * texts with it too; the exporters keep importing it from here.
 */
export * from '../../core/native/scrub.js';

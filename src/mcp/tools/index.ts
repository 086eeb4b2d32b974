/**
 * Kept only so that bridge.ts (edited on another branch) still resolves its import: the
 * operations are declared in core (src/core/operations/catalog.ts). Remove this file when
 * bridge.ts imports OPERATION_NAMES from there.
 */
export { OPERATION_NAMES as TOOL_NAMES } from '../../core/operations/catalog.js';

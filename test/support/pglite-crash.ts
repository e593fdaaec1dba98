/**
 * Breaks an embedded database the way a WASM fault does, for the outage tests (issue 10).
 *
 * Why not a real fault: the one a hostile body used to cause (a 3000-level jsonb value, refused
 * at parse time since) overruns PGlite's WASM stack, which is undefined behaviour. Depending on
 * the memory layout, which shifts with paths and environment, it traps with "memory access out
 * of bounds" (what production met) or it corrupts memory and spins for ever on the event loop (a
 * stand-alone clone under /tmp did, every time). So the fault is injected where PGlite calls into
 * its WASM module (`mod._interactive_one`, the entry of every query): the next statement throws
 * the WebAssembly.RuntimeError a trap throws, through PGlite's real code path and the service's
 * guard, on any machine.
 */
import type { Database } from '../../src/platform/db/client.ts';

export function injectWasmTrap(database: Database): void {
  if (database.kind !== 'pglite') throw new Error('injectWasmTrap: the embedded database only');
  const client = (database.db as unknown as { $client?: { mod?: Record<string, unknown> } }).$client;
  const mod = client?.mod;
  if (!mod || typeof mod._interactive_one !== 'function') {
    throw new Error("injectWasmTrap: PGlite's WASM entry point (mod._interactive_one) moved; update this helper for the new PGlite");
  }
  mod._interactive_one = () => {
    throw new WebAssembly.RuntimeError('memory access out of bounds');
  };
}

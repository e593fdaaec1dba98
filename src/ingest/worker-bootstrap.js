// Entry of a parser worker thread. The parsers are TypeScript, so this thread needs tsx's loader.
// Whether a worker gets it from its parent depends on the launch and the Node version: on Node 20
// an inherited `--import tsx` does not give a worker TypeScript support ("Unknown file extension
// .ts"), and hooks registered programmatically in the parent (bin/mindprint.js) are never
// inherited. So probe: if a .ts module already loads, use the inherited loader; otherwise register
// tsx in this thread. Either way exactly one tsx loader is active.
try {
  await import('./tsx-probe.ts');
} catch {
  const { register } = await import('tsx/esm/api');
  register();
}
await import('./worker.ts');

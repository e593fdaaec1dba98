// Entry of a parser worker thread. The parsers are TypeScript, so the worker needs tsx's loader.
// On Node 20 a worker does not get TypeScript support from `--import tsx` in its execArgv
// ("Unknown file extension .ts"), and hooks registered programmatically in the parent
// (bin/mindprint.js) are not inherited either; registering here works in every launch mode.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');

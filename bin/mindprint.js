#!/usr/bin/env node
// The `mindprint` executable. The service is TypeScript run through tsx's loader,
// so a clone runs with `npm ci` alone: no build step between editing and running.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');

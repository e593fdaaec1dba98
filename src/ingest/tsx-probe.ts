/** Imported by worker-bootstrap.js to learn whether this thread can already load TypeScript. */
export const typescriptLoads: boolean = true;

/**
 * Imported by a worker started from source (./modules.ts) to learn whether tsx's loader is active
 * in its thread. An enum is TypeScript that tsx compiles and Node's own type stripping refuses
 * (ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX), so this loads only under tsx.
 */
export enum TsxLoaded {
  Yes = 1,
}

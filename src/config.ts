import { isIP } from 'node:net';
import path from 'node:path';
import { looksLikeKey, MAX_KEY_LENGTH, MIN_KEY_LENGTH } from './platform/auth/key-shape.ts';
import { embeddingsConfigFromEnv, type EmbeddingsConfig } from './lib/embeddings/config.ts';
import { llmConfigFromEnv, type LlmConfig } from './engines/llm/config.ts';
import { DEFAULT_PARSE_BUDGETS, POOL_SIZE, type ParseBudgets } from './lib/ingest/budgets.ts';
import { defaultModelFrom } from './engines/models.ts';

/** Every setting of the service, read from the environment once and validated at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… switches from the embedded PGlite database to a PostgreSQL server. */
  databaseUrl: string | null;
  basePath: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bootstrapKey: string | null;
  /** s3://bucket[/prefix] switches from the local artifact directory to S3-compatible storage. */
  storageUrl: string | null;
  maxUploadBytes: number;
  /** Public origin used in signed upload URLs (defaults to http://HOST:PORT). */
  publicUrl: string | null;
  /** Secret for HMAC-signed upload URLs; generated and kept in the data dir when unset. */
  signingSecret: string | null;
  /** Run the job workers inside `serve` (default true; set false when `mindprint worker` processes run beside it). */
  inProcessWorker: boolean;
  /**
   * Serve GET /minds and GET /minds/{id} from a read cache (default true). On PostgreSQL it needs
   * LISTEN on a direct connection; set false behind PgBouncer in transaction mode.
   */
  readCache: boolean;
  /** A job running longer than this is considered lost (its worker died) and is retried. */
  jobExpireSeconds: number;
  /** How often lost (expired) jobs are looked for. */
  jobMaintenanceSeconds: number;
  /** On SIGTERM, how long jobs in flight may finish before they are released to other workers. */
  jobShutdownSeconds: number;
  /** Requests per minute one API key may make (0: no limit); 429 RATE_LIMITED beyond. */
  rateLimitPerMinute: number;
  /** Failed authentications per minute from one client address (0: no limit); 429 RATE_LIMITED beyond, for every request from it. */
  authFailuresPerMinute: number;
  /**
   * Origins whose browser pages may call the API and /mcp (MINDPRINT_CORS_ORIGINS, comma-separated
   * `https://app.example.org`): CORS answers for them, and /mcp accepts their Origin header. Empty
   * (the default): no CORS, and /mcp accepts only the server's own origin.
   */
  corsOrigins: string[];
  /**
   * Take the client address from X-Forwarded-For (Fastify's trustProxy): false (the connection's
   * address), true (the left-most address), or the number of proxies in front of the service.
   */
  trustProxy: boolean | number;
  /**
   * What one parse of an uploaded file may use (MINDPRINT_PARSE_MEMORY_MB, MINDPRINT_PARSE_CPU_SECONDS,
   * MINDPRINT_PARSE_MAX_DECODED_MB): past a budget the snapshot fails at once, naming the limit.
   */
  parseBudgets: ParseBudgets;
  /** Parser processes per worker process, hence snapshot jobs run at once (MINDPRINT_PARSER_PROCESSES). */
  parserProcesses: number;
  /** The environment the settings were read from (the AWS SDK reads its own variables from it). */
  env: NodeJS.ProcessEnv;
  /** LLM simulation engines (MINDPRINT_LLM_*); null when none is configured. */
  llm: LlmConfig | null;
  /**
   * Sentence embeddings for semantic memory (MINDPRINT_EMBEDDINGS_*): an OpenAI-compatible
   * /v1/embeddings endpoint, or null for the offline GloVe-SIF embedder (the default).
   */
  embeddings: EmbeddingsConfig | null;
  /**
   * Where semantic search runs (MINDPRINT_VECTOR_SEARCH): `auto` uses pgvector on a PostgreSQL
   * server that has it and exact search in process otherwise (also on the embedded PGlite, where it
   * is faster); `pgvector` uses it wherever the database has it; `process` always searches in process.
   */
  vectorSearch: 'auto' | 'pgvector' | 'process';
  /**
   * Where full-text search for memory runs (MINDPRINT_LEXICAL_SEARCH): `auto` searches an
   * in-process index of the mind's turns unless the mind is very large (src/features/memory/service.ts,
   * MAX_PROCESS_TURNS), then the database; `database` or `process` force one.
   */
  lexicalSearch: 'auto' | 'database' | 'process';
  /**
   * Adapt the extractive engine's reranker to each mind from its own question → answer pairs
   * (MINDPRINT_RERANKER_ADAPT; off by default: on the development split it did not choose better
   * than the shipped model — BENCHMARKS.md, "Simulation fidelity").
   */
  rerankerAdapt: boolean;
  /** The simulation model used when none is named (MINDPRINT_DEFAULT_MODEL; else the first LLM model, else extractive). */
  defaultModel: string;
  /**
   * With an LLM configured, each processed snapshot also gets questionnaire psychometrics (the LLM
   * answers the 50-item IPIP Big-Five markers in character; src/features/questionnaire): 5 model calls per
   * snapshot. MINDPRINT_LLM_QUESTIONNAIRE=false turns it off; without an LLM it never runs.
   */
  questionnaire: boolean;
  /**
   * Let webhooks target loopback, private, link-local, CGNAT and other non-public addresses
   * (MINDPRINT_WEBHOOKS_ALLOW_PRIVATE; off by default: a webhook URL must not reach the service's
   * own network or a cloud metadata endpoint). For a receiver on the same host or network only.
   */
  webhooksAllowPrivate: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid ${variable}: ${problem}`);
  }
}

/** A DNS host name (RFC 1123 labels); whether it resolves is found out when listening. */
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `expected ${min}–${max}, got ${value}`);
  return value;
}

function optional(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = optional(env, name);
  if (raw === null) return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

/** MINDPRINT_TRUST_PROXY: true/false, or how many proxies are in front (1, 2, …). */
function trustProxy(env: NodeJS.ProcessEnv): boolean | number {
  const raw = optional(env, 'MINDPRINT_TRUST_PROXY');
  if (raw !== null && /^\d+$/.test(raw)) return integer(env, 'MINDPRINT_TRUST_PROXY', 0, 0, 100);
  try {
    return boolean(env, 'MINDPRINT_TRUST_PROXY', false);
  } catch {
    throw new ConfigError('MINDPRINT_TRUST_PROXY', `expected true, false or the number of proxies in front of the service, got "${raw}"`);
  }
}

/**
 * MINDPRINT_CORS_ORIGINS: exact origins (scheme, host, port; no path), normalised as browsers send
 * them in Origin. No `*`: /mcp refuses foreign origins (DNS rebinding), and any origin is no list.
 */
function corsOrigins(env: NodeJS.ProcessEnv): string[] {
  const raw = optional(env, 'MINDPRINT_CORS_ORIGINS');
  if (raw === null) return [];
  const origins = new Set<string>();
  for (const entry of raw.split(',').map((e) => e.trim()).filter(Boolean)) {
    let url: URL | null = null;
    try {
      url = new URL(entry);
    } catch {
      /* reported below */
    }
    const bare = url && /^https?:$/.test(url.protocol) && !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash;
    if (!url || !bare) throw new ConfigError('MINDPRINT_CORS_ORIGINS', `expected comma-separated origins like https://app.example.org (scheme, host and port only; no *), got "${entry}"`);
    origins.add(url.origin);
  }
  return [...origins];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = optional(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'expected a postgres:// or postgresql:// URL');
  }
  const basePath = optional(env, 'MINDPRINT_BASE_PATH') ?? '/api/svc';
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(basePath)) {
    throw new ConfigError('MINDPRINT_BASE_PATH', `expected a path like /api/svc, got "${basePath}"`);
  }
  const logLevel = (optional(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const bootstrapKey = optional(env, 'MINDPRINT_BOOTSTRAP_KEY');
  if (bootstrapKey && !looksLikeKey(bootstrapKey)) {
    throw new ConfigError('MINDPRINT_BOOTSTRAP_KEY', `must be ${MIN_KEY_LENGTH}-${MAX_KEY_LENGTH} printable ASCII characters without spaces (it is sent as "Authorization: Bearer <key>")`);
  }
  const storageUrl = optional(env, 'MINDPRINT_STORAGE_URL');
  if (storageUrl && !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(storageUrl)) {
    throw new ConfigError('MINDPRINT_STORAGE_URL', 'expected s3://bucket[/prefix]');
  }
  const publicUrl = optional(env, 'MINDPRINT_PUBLIC_URL');
  if (publicUrl && !/^https?:\/\/[^/]+/.test(publicUrl)) {
    throw new ConfigError('MINDPRINT_PUBLIC_URL', 'expected an http(s):// origin');
  }
  const signingSecret = optional(env, 'MINDPRINT_SIGNING_SECRET');
  if (signingSecret && signingSecret.length < 32) {
    throw new ConfigError('MINDPRINT_SIGNING_SECRET', 'must be at least 32 characters');
  }
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  if (!isIP(host) && !HOSTNAME.test(host)) {
    throw new ConfigError('HOST', `expected an IP address (127.0.0.1, 0.0.0.0, ::) or a host name, got "${host}"`);
  }
  let llm: LlmConfig | null;
  try {
    llm = llmConfigFromEnv(env);
  } catch (err) {
    // The message already names the variable and the problem (never the key's value).
    throw new ConfigError('MINDPRINT_LLM_*', err instanceof Error ? err.message : String(err));
  }
  let embeddings: EmbeddingsConfig | null;
  try {
    embeddings = embeddingsConfigFromEnv(env);
  } catch (err) {
    throw new ConfigError('MINDPRINT_EMBEDDINGS_*', err instanceof Error ? err.message : String(err));
  }
  const lexicalSearch = (optional(env, 'MINDPRINT_LEXICAL_SEARCH') ?? 'auto').toLowerCase();
  if (lexicalSearch !== 'auto' && lexicalSearch !== 'database' && lexicalSearch !== 'process') {
    throw new ConfigError('MINDPRINT_LEXICAL_SEARCH', `expected auto, database or process, got "${lexicalSearch}"`);
  }
  const vectorSearch = (optional(env, 'MINDPRINT_VECTOR_SEARCH') ?? 'auto').toLowerCase();
  if (vectorSearch !== 'auto' && vectorSearch !== 'pgvector' && vectorSearch !== 'process') {
    throw new ConfigError('MINDPRINT_VECTOR_SEARCH', `expected auto, pgvector or process, got "${vectorSearch}"`);
  }
  let defaultModel: string;
  try {
    defaultModel = defaultModelFrom(env, llm?.models ?? []);
  } catch (err) {
    throw new ConfigError('MINDPRINT_DEFAULT_MODEL', err instanceof Error ? err.message : String(err));
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host,
    dataDir: path.resolve(optional(env, 'MINDPRINT_DATA_DIR') ?? './data'),
    databaseUrl,
    basePath,
    logLevel: logLevel as Config['logLevel'],
    bootstrapKey,
    storageUrl,
    maxUploadBytes: integer(env, 'MINDPRINT_MAX_UPLOAD_MB', 50, 1, 4096) * 1024 * 1024,
    publicUrl: publicUrl?.replace(/\/+$/, '') ?? null,
    signingSecret,
    inProcessWorker: boolean(env, 'MINDPRINT_IN_PROCESS_WORKER', true),
    readCache: boolean(env, 'MINDPRINT_READ_CACHE', true),
    jobExpireSeconds: integer(env, 'MINDPRINT_JOB_EXPIRE_SECONDS', 300, 1, 86_400),
    jobMaintenanceSeconds: integer(env, 'MINDPRINT_JOB_MAINTENANCE_SECONDS', 30, 1, 3_600),
    jobShutdownSeconds: integer(env, 'MINDPRINT_JOB_SHUTDOWN_SECONDS', 30, 1, 3_600),
    rateLimitPerMinute: integer(env, 'MINDPRINT_RATE_LIMIT_PER_MINUTE', 3000, 0, 100_000_000),
    authFailuresPerMinute: integer(env, 'MINDPRINT_AUTH_FAILURES_PER_MINUTE', 60, 0, 100_000_000),
    corsOrigins: corsOrigins(env),
    trustProxy: trustProxy(env),
    parseBudgets: {
      ...DEFAULT_PARSE_BUDGETS,
      memoryMb: integer(env, 'MINDPRINT_PARSE_MEMORY_MB', DEFAULT_PARSE_BUDGETS.memoryMb, 128, 65_536),
      cpuSeconds: integer(env, 'MINDPRINT_PARSE_CPU_SECONDS', DEFAULT_PARSE_BUDGETS.cpuSeconds, 1, 3_600),
      maxDecodedBytes: integer(env, 'MINDPRINT_PARSE_MAX_DECODED_MB', DEFAULT_PARSE_BUDGETS.maxDecodedBytes / (1024 * 1024), 1, 16_384) * 1024 * 1024,
    },
    parserProcesses: integer(env, 'MINDPRINT_PARSER_PROCESSES', POOL_SIZE, 1, 64),
    env,
    llm,
    embeddings,
    vectorSearch,
    lexicalSearch,
    rerankerAdapt: boolean(env, 'MINDPRINT_RERANKER_ADAPT', false),
    defaultModel,
    questionnaire: boolean(env, 'MINDPRINT_LLM_QUESTIONNAIRE', true) && llm !== null,
    webhooksAllowPrivate: boolean(env, 'MINDPRINT_WEBHOOKS_ALLOW_PRIVATE', false),
  };
}

import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import type { LogLevel } from './lib/logger.ts'
import type { PdfLimits, PdfWorkOptions } from './pdf-work/limits.ts'

/** Every setting the service reads from the environment, parsed once at start-up. */
export interface Config {
  port: number
  host: string
  /** Base URL that e-mails and links point at, without a trailing slash. */
  publicUrl: string
  /** Where the embedded database and instance files live (ignored for the DB when databaseUrl is set). */
  dataDir: string
  /** postgres:// URL; when absent the embedded PGlite database under dataDir is used. */
  databaseUrl: string | undefined
  /**
   * How DATABASE_URL's connections behave (DATABASE_POOL_MODE, DATABASE_DIRECT_URL): `session` (one
   * PostgreSQL session per connection: named prepared statements), or `transaction` (a pooler such as
   * PgBouncer in transaction mode, which hands each transaction to any server connection: unnamed
   * statements only). `directUrl` reaches PostgreSQL itself, for migrations and LISTEN, which need a
   * session of their own; required with `transaction`.
   */
  databasePool: { mode: 'session' | 'transaction'; directUrl: string | undefined }
  /**
   * CLUSTER_CHECK (default on): on PostgreSQL, refuse to start beside a running server whose
   * PUBLIC_URL, seal key or identity-document key differs (operator/cluster-nodes.ts). `off` is for
   * rigs that run servers of different addresses on one database on purpose (tests, benchmarks).
   */
  clusterCheck: boolean
  /** smtp:// or smtps:// URL; when absent mail is kept in the database outbox and logged. */
  smtpUrl: string | undefined
  mailFrom: string
  logLevel: LogLevel
  /** Largest accepted request body (bytes). */
  bodyLimit: number
  /** How often the mail outbox is polled for due messages (ms). */
  mailPollMs: number
  /** After SIGTERM, how long /healthz answers 503 while requests are still served, before the server closes (ms). */
  shutdownGraceMs: number
  /**
   * Which proxies to believe about the client's address (recorded in the audit trail):
   * false (default: the socket's peer), true (any), or a comma-separated list of proxy addresses/CIDRs.
   */
  trustProxy: boolean | string
  /**
   * How long clients may hold the server's connections (all ms, except the counts): the whole
   * request (headers and body) must arrive within requestTimeoutMs (else 408, closed); a
   * connection with no bytes moving either way for idleTimeoutMs is closed; an idle keep-alive
   * connection after keepAliveTimeoutMs, any after maxRequestsPerSocket requests (0: no limit);
   * connections beyond maxConnections are closed at once.
   */
  connections: { requestTimeoutMs: number; idleTimeoutMs: number; keepAliveTimeoutMs: number; maxRequestsPerSocket: number; maxConnections: number }
  /** Failed API-key lookups one client address may cause per minute before it gets 429 (api-keys/failed-key-lookups.ts); 0: no limit. */
  failedAuthPerMinute: number
  /** Allow webhook URLs on private, loopback and link-local addresses (off: SSRF guard). */
  webhookAllowPrivate: boolean
  /** Time budget of one bulk-send request (ms); the spec's is 60 s. */
  bulkBudgetMs: number
  /** How often background jobs (signed-PDF rendering, document expiry) look for due work (ms). */
  jobPollMs: number
  /**
   * Per-org request limits (rate-limits/consume-rate-limit.ts). `enabled` false (RATE_LIMITS=off) turns them
   * off; `perHour` overrides the built-in limit of a named policy (RATE_LIMITS=create=5,read-document=1000).
   */
  rateLimits: { enabled: boolean; perHour: Record<string, number> }
  /** A PKCS#12 file with the seal key and its certificate chain; absent: the instance PKI generated on first start. */
  sealP12: { path: string; password: string } | undefined
  /**
   * RFC 3161 time-stamp authorities, tried in order. The entry `local` is this instance's
   * built-in authority (its own key, certified by the instance root): the default, so a
   * fresh instance seals offline, and a last resort after third-party URLs.
   */
  tsaUrls: string[]
  /** How long one TSA may take to answer before the next is tried (ms). */
  tsaTimeoutMs: number
  /**
   * The instance key (IDENTITY_DOCUMENT_KEY, 32 bytes in base64), AES-256: it wraps each identity
   * document's own key (destroyed at the decision: crypto-shredding) and encrypts users' TOTP
   * secrets (adapters/document-cipher.ts). Losing it makes pending documents unreadable and every
   * authenticator app need the operator's reset. Absent: a key file generated once in DATA_DIR,
   * which only one server can read, so deployments with several servers on PostgreSQL must set it.
   */
  identityDocumentKey: Buffer | undefined
  /** The worker pool every PDF parse, render and seal runs in (pdf-work/pdf-work.ts). */
  pdfWork: PdfWorkOptions
  /** What one PDF may ask of the server (pdf-work/limits.ts). */
  pdfLimits: PdfLimits
  /**
   * Dashboard sessions (accounts/sessions.ts): one ends after idleHours without a request
   * (SESSION_IDLE_HOURS, default 12) and maxDays after sign-in whatever its activity (SESSION_MAX_DAYS, default 14).
   */
  sessions: { idleHours: number; maxDays: number }
  /**
   * Prometheus metrics (metrics/), off unless one of these is set: `token` serves GET /metrics on
   * the main port to `Authorization: Bearer <token>` (METRICS_TOKEN); `port` a listener of its own
   * on `host` (METRICS_PORT, METRICS_HOST, default 127.0.0.1) that serves /metrics without a token.
   */
  metrics: { token: string | undefined; port: number | undefined; host: string }
  /**
   * Where blob bytes live (BLOB_STORE): `database` (files in DATA_DIR/blobs on the embedded database, rows
   * on PostgreSQL) or `s3`, an S3-compatible bucket (adapters/s3-blob-store.ts); its credentials come from
   * the AWS SDK's default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance role).
   */
  blobStore: BlobStoreSettings
}

export interface S3Settings {
  bucket: string
  region: string
  /** Absent: AWS's own endpoint for the region; set for MinIO, R2, Ceph and the like. */
  endpoint: string | undefined
  /** Bucket in the path (http://host/bucket/key), not the host name (http://bucket.host/key): most self-hosted servers need it. */
  forcePathStyle: boolean
}

export type BlobStoreSettings = { kind: 'database' } | ({ kind: 's3' } & S3Settings)

const MB = 1024 * 1024

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

const RATE_LIMIT_ENTRY = /^([a-z][a-z-]*)=([0-9]{1,9})$/

/** RATE_LIMITS: unset (the built-in limits), `off`, or `name=perHour` pairs separated by commas. */
function parseRateLimits(raw: string | undefined, problems: string[]): Config['rateLimits'] {
  const limits: Config['rateLimits'] = { enabled: true, perHour: {} }
  if (raw === undefined || raw.trim() === '') return limits
  if (raw.trim() === 'off') return { enabled: false, perHour: {} }
  for (const entry of raw.split(',').map((e) => e.trim())) {
    const match = RATE_LIMIT_ENTRY.exec(entry)
    const perHour = Number(match?.[2])
    if (!match?.[1] || perHour < 1) {
      problems.push(`RATE_LIMITS must be "off" or name=perHour pairs such as create=60,read-document=300 (got "${entry}")`)
      continue
    }
    limits.perHour[match[1]] = perHour
  }
  return limits
}

/** TSA_URL: comma-separated http(s) URLs and/or `local`; default `local`. */
function parseTsaUrls(raw: string | undefined, problems: string[]): string[] {
  if (raw === undefined || raw.trim() === '') return ['local']
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  for (const entry of entries) {
    if (entry === 'local') continue
    try {
      if (!['http:', 'https:'].includes(new URL(entry).protocol)) problems.push(`TSA_URL entries must be http(s) URLs or "local" (got "${entry}")`)
    } catch {
      problems.push(`TSA_URL entries must be http(s) URLs or "local" (got "${entry}")`)
    }
  }
  return entries
}

/** IDENTITY_DOCUMENT_KEY: unset, or 32 bytes in base64 (`openssl rand -base64 32`). */
function parseIdentityDocumentKey(raw: string | undefined, problems: string[]): Buffer | undefined {
  if (raw === undefined || raw.trim() === '') return undefined
  const key = Buffer.from(raw.trim(), 'base64')
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw.trim()) || key.length !== 32) {
    problems.push('IDENTITY_DOCUMENT_KEY must be 32 bytes in base64, e.g. the output of `openssl rand -base64 32`')
    return undefined
  }
  return key
}

/** METRICS_TOKEN: long enough not to be guessed, and a valid header value (no spaces or control characters). */
const METRICS_TOKEN_FORMAT = /^[\x21-\x7e]{16,512}$/

/** METRICS_TOKEN, METRICS_PORT and METRICS_HOST (both unset: metrics off). */
function parseMetrics(env: NodeJS.ProcessEnv, mainPort: number, problems: string[]): Config['metrics'] {
  const token = env.METRICS_TOKEN || undefined
  if (token !== undefined && !METRICS_TOKEN_FORMAT.test(token)) {
    problems.push('METRICS_TOKEN must be 16 to 512 characters without spaces, e.g. the output of `openssl rand -hex 32`')
  }
  let port: number | undefined
  const rawPort = env.METRICS_PORT
  if (rawPort !== undefined && rawPort !== '') {
    port = Number(rawPort)
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      problems.push(`METRICS_PORT must be an integer between 1 and 65535 (got "${rawPort}")`)
      port = undefined
    } else if (port === mainPort) {
      problems.push(`METRICS_PORT must differ from PORT (both are ${port})`)
    }
  }
  const host = env.METRICS_HOST || '127.0.0.1'
  if (env.METRICS_HOST && !rawPort) problems.push('METRICS_HOST is set but METRICS_PORT is not: set the port the metrics listener should use')
  return { token, port, host }
}

const POOL_MODES: readonly Config['databasePool']['mode'][] = ['session', 'transaction']

/** DATABASE_POOL_MODE (default session); `transaction` needs DATABASE_DIRECT_URL past the pooler. */
function parseDatabasePool(env: NodeJS.ProcessEnv, directUrl: string | undefined, problems: string[]): Config['databasePool'] {
  const mode = (env.DATABASE_POOL_MODE || 'session') as Config['databasePool']['mode']
  if (!POOL_MODES.includes(mode)) {
    problems.push(`DATABASE_POOL_MODE must be one of ${POOL_MODES.join(', ')} (got "${mode}")`)
    return { mode: 'session', directUrl }
  }
  if (mode === 'transaction' && !env.DATABASE_URL) problems.push('DATABASE_POOL_MODE=transaction needs DATABASE_URL (the pooler)')
  if (mode === 'transaction' && !env.DATABASE_DIRECT_URL) {
    problems.push('DATABASE_DIRECT_URL must be set with DATABASE_POOL_MODE=transaction: a connection straight to PostgreSQL for migrations and LISTEN')
  }
  return { mode, directUrl }
}

/** BLOB_STORE and, for `s3`, S3_BUCKET, S3_REGION, S3_ENDPOINT and S3_FORCE_PATH_STYLE. */
function parseBlobStore(env: NodeJS.ProcessEnv, endpoint: string | undefined, problems: string[]): BlobStoreSettings {
  const kind = env.BLOB_STORE || 'database'
  if (kind !== 'database' && kind !== 's3') {
    problems.push(`BLOB_STORE must be "database" or "s3" (got "${kind}")`)
    return { kind: 'database' }
  }
  const pathStyle = env.S3_FORCE_PATH_STYLE || 'false'
  if (pathStyle !== 'true' && pathStyle !== 'false') problems.push(`S3_FORCE_PATH_STYLE must be "true" or "false" (got "${pathStyle}")`)
  if (kind === 'database') return { kind }
  const bucket = env.S3_BUCKET?.trim() ?? ''
  if (bucket === '') problems.push('S3_BUCKET must name the bucket blobs are kept in when BLOB_STORE=s3')
  return { kind, bucket, region: env.S3_REGION || 'us-east-1', endpoint, forcePathStyle: pathStyle === 'true' }
}

/** An on/off switch that is on unless set to `off`. */
function parseOnOff(name: string, raw: string | undefined, problems: string[]): boolean {
  if (raw === undefined || raw === '' || raw === 'on') return true
  if (raw === 'off') return false
  problems.push(`${name} must be on or off (got "${raw}")`)
  return true
}

function parseTrustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw === '' || raw === 'false') return false
  if (raw === 'true') return true
  return raw
}

/** Parses the environment; throws a ConfigError listing every bad variable at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = []

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    const value = Number(raw)
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`)
      return fallback
    }
    return value
  }

  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = env[name]
    if (raw === undefined || raw === '') return undefined
    try {
      const parsed = new URL(raw)
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`)
      }
      return raw
    } catch {
      problems.push(`${name} is not a valid URL`)
      return undefined
    }
  }

  const port = integer('PORT', 3000, 0, 65535)
  const host = env.HOST || '127.0.0.1'
  const publicUrl = (url('PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '')
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel']
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)

  const config: Config = {
    port,
    host,
    publicUrl,
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePool: parseDatabasePool(env, url('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']), problems),
    clusterCheck: parseOnOff('CLUSTER_CHECK', env.CLUSTER_CHECK, problems),
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'Signet <no-reply@localhost>',
    logLevel,
    bodyLimit: integer('BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    mailPollMs: integer('MAIL_POLL_MS', 2000, 50, 3_600_000),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 0, 0, 60_000),
    jobPollMs: integer('JOB_POLL_MS', 5000, 50, 3_600_000),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    connections: {
      // Node's own default, which Fastify turns off: a 25 MB upload fits at 0.7 Mbit/s.
      requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 300_000, 100, 3_600_000),
      // Longer than the longest a request waits on the server in silence (a bulk send's 60 s budget, a PDF task's 60 s).
      idleTimeoutMs: integer('CONNECTION_TIMEOUT_MS', 120_000, 100, 3_600_000),
      // Fastify's default: longer than load balancers' usual 60 s, so they close first and never reuse a closing connection.
      keepAliveTimeoutMs: integer('KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
      maxRequestsPerSocket: integer('MAX_REQUESTS_PER_SOCKET', 0, 0, 1_000_000),
      maxConnections: integer('MAX_CONNECTIONS', 1000, 1, 1_000_000),
    },
    failedAuthPerMinute: integer('FAILED_AUTH_PER_MINUTE', 20, 0, 1_000_000),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === 'true',
    bulkBudgetMs: integer('BULK_BUDGET_MS', 60_000, 100, 60_000),
    rateLimits: parseRateLimits(env.RATE_LIMITS, problems),
    sealP12: env.SEAL_P12 ? { path: resolve(env.SEAL_P12), password: env.SEAL_P12_PASSWORD ?? '' } : undefined,
    tsaUrls: parseTsaUrls(env.TSA_URL, problems),
    tsaTimeoutMs: integer('TSA_TIMEOUT_MS', 10_000, 100, 120_000),
    identityDocumentKey: parseIdentityDocumentKey(env.IDENTITY_DOCUMENT_KEY, problems),
    pdfWork: {
      // One core stays with the event loop.
      workers: integer('PDF_WORKERS', Math.max(1, Math.min(4, availableParallelism() - 1)), 1, 64),
      queue: integer('PDF_QUEUE', 8, 0, 10_000),
      taskTimeoutMs: integer('PDF_TASK_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
      workerMemoryMb: integer('PDF_WORKER_MEMORY_MB', 512, 64, 16_384),
    },
    pdfLimits: {
      maxBytes: integer('PDF_MAX_MB', 25, 1, 1024) * MB,
      maxPages: integer('PDF_MAX_PAGES', 2_000, 1, 1_000_000),
      maxObjects: integer('PDF_MAX_OBJECTS', 500_000, 100, 100_000_000),
      maxImagePixels: integer('PDF_MAX_IMAGE_MEGAPIXELS', 100, 1, 10_000) * 1_000_000,
      maxDecompressedBytes: integer('PDF_MAX_DECOMPRESSED_MB', 512, 1, 65_536) * MB,
    },
    sessions: {
      idleHours: integer('SESSION_IDLE_HOURS', 12, 1, 24 * 365),
      maxDays: integer('SESSION_MAX_DAYS', 14, 1, 365),
    },
    metrics: parseMetrics(env, port, problems),
    blobStore: parseBlobStore(env, url('S3_ENDPOINT', ['http:', 'https:']), problems),
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

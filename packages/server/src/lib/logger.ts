import type { FastifyBaseLogger } from 'fastify'
import { pino, type DestinationStream } from 'pino'
import pinoPretty from 'pino-pretty'

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

/** pino, typed as Fastify's logger so the same instance serves the app and the domain. */
export type Logger = FastifyBaseLogger

/**
 * Fields never written to logs, at any depth of a log object: request credentials (headers) and
 * the secrets of our own bodies and log objects (`password`, `new_password`, `token`,
 * `invitation_token`, `api_key`…). Matched by name in the finished JSON line, so a secret nested
 * deeper than a path list would reach is caught too; its string, number or list-of-strings value is
 * replaced. (pino's path redaction cost ~10 µs a line, a tenth of a document read: issue 21.)
 */
const SECRET_FIELD_NAME = String.raw`"(?:authorization|cookie|set-cookie|x-api-key|api_key|[a-z_]*password|[a-z_]*token)"`
const JSON_STRING = String.raw`"(?:[^"\\]|\\.)*"`
const SECRET_FIELD = new RegExp(`(${SECRET_FIELD_NAME}:)(?:${JSON_STRING}|\\[(?:${JSON_STRING},?)*\\]|-?[0-9][0-9.eE+-]*)`, 'gi')

/**
 * Secrets that travel in URLs, by their shape: a signing link's token (`/sign/<token>/…`, the
 * signer's only credential) and an API key a client put in a query string by mistake.
 */
const SECRETS_IN_TEXT: [RegExp, string][] = [
  [/\/sign\/[A-Za-z0-9_-]+/g, '/sign/[redacted]'],
  [/sgn_live_[0-9a-f]+/g, 'sgn_live_[redacted]'],
  // The dashboard's single-use links (verify, reset, setup, invitation) and its session cookie.
  [/([?&]token=)[A-Za-z0-9_-]+/g, '$1[redacted]'],
  [/\/invit(e|ations)\/[A-Za-z0-9_-]{20,}/g, '/invit$1/[redacted]'],
  [/signet_session=[A-Za-z0-9_-]+/g, 'signet_session=[redacted]'],
  [SECRET_FIELD, '$1"[redacted]"'],
]

/** What every pattern above needs: a line without any of these holds none of them. */
const MAY_HOLD_SECRET = /\/sign\/|sgn_live_|token|\/invit|signet_session=|password|authorization|cookie|api[_-]key/i

/**
 * Applied to each finished line rather than in serializers: a URL reaches the log not only as
 * `req.url` but inside messages and error stacks (Fastify's "Reply was already sent … in the
 * "/sign/…" route"), and only the whole line shows all of them. The patterns contain no
 * character JSON escapes, so the serialized line matches as the text did.
 */
function redactSecrets(line: string): string {
  // One scan finds nearly every line clean (the access log writes one per request); only the others pay for each pattern.
  if (!MAY_HOLD_SECRET.test(line)) return line
  return SECRETS_IN_TEXT.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), line)
}

/**
 * Logs to stdout, or to `destination` (tests read what the server really writes): lines a
 * person reads when stdout is a terminal, JSON lines otherwise (for log collectors). The
 * pretty stream runs in this thread and receives lines already redacted.
 */
export function createLogger(config: { logLevel: LogLevel }, destination?: DestinationStream): Logger {
  const output = destination ?? (process.stdout.isTTY ? pinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }) : undefined)
  return pino({ level: config.logLevel, hooks: { streamWrite: redactSecrets } }, output)
}

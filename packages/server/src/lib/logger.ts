import type { FastifyBaseLogger } from 'fastify'
import { pino, type DestinationStream } from 'pino'
import pinoPretty from 'pino-pretty'

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

/** pino, typed as Fastify's logger so the same instance serves the app and the domain. */
export type Logger = FastifyBaseLogger

/** Paths never written to logs: credentials in requests and secrets in our own log objects. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'api_key',
  'token',
  'password',
  'current_password',
  'new_password',
  'invitation_token',
  '*.api_key',
  '*.token',
  '*.password',
  '*.current_password',
  '*.new_password',
  '*.invitation_token',
]

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
]

/** What every pattern above starts with: a line without any of these holds none of them. */
const MAY_HOLD_SECRET = /\/sign\/|sgn_live_|[?&]token=|\/invit|signet_session=/

/**
 * Applied to each finished line rather than in serializers: a URL reaches the log not only as
 * `req.url` but inside messages and error stacks (Fastify's "Reply was already sent … in the
 * "/sign/…" route"), and only the whole line shows all of them. The patterns contain no
 * character JSON escapes, so the serialized line matches as the text did.
 */
function redactSecrets(line: string): string {
  // One scan finds nearly every line clean (two are written per request); only the others pay for each pattern.
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
  return pino({ level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, hooks: { streamWrite: redactSecrets } }, output)
}

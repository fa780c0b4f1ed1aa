import type { FastifyBaseLogger } from 'fastify'
import { pino } from 'pino'
import type { Config } from '../config.ts'

/** pino, typed as Fastify's logger so the same instance serves the app and the domain. */
export type Logger = FastifyBaseLogger

/** Paths never written to logs: credentials in requests and secrets in our own log objects. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'api_key',
  'token',
  '*.api_key',
  '*.token',
]

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } })
}

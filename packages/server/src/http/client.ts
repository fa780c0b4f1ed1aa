import type { FastifyRequest } from 'fastify'
import type { Client } from '../accounts/account-context.ts'

/** Where a request comes from, as the account code records it (sessions, security log, per-address limits). */
export const clientOf = (request: FastifyRequest): Client => ({ ip: request.ip, userAgent: request.headers['user-agent'] ?? null })

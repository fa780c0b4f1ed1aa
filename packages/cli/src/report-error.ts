import { SignetError } from '@signet/sdk'
import { serverUrl } from './client.ts'
import { CliError, EXIT } from './exit-codes.ts'

/** What to do about a refusal, by its stable code (packages/server/src/errors.ts), else by status. */
function hintFor(error: SignetError): string {
  switch (error.code) {
    case 'missing_api_key':
    case 'invalid_api_key':
    case 'unauthenticated':
      return 'check SIGNET_API_KEY, or run `signet login` with a key from Settings → API keys'
    case 'insufficient_scope':
      return 'this key is read-only: use a read-write key'
    case 'payment_required':
      return 'the plan does not allow this or its allowance is used up: `signet usage` shows what is left; upgrade in Settings → Billing'
    case 'spend_cap_reached':
      return "this month's spend cap is reached: raise it in Settings → Billing"
    case 'not_found':
      return 'check the id (`signet templates list`, or the id `signet send` printed)'
    case 'rate_limited':
      return `too many requests: wait ${error.retryAfter ?? 60} s and try again`
    case 'validation_failed':
    case 'invalid_request':
      return error.field ? `fix ${error.field} and try again` : 'fix the request and try again'
    case 'conflict':
      return 'the document or key is not in a state that allows this'
    default:
      if (error.status === 401) return 'check SIGNET_API_KEY, or run `signet login`'
      if (error.status >= 500) return 'the server failed: try again in a moment, and tell its operator if it persists'
      return 'see the message for what to change'
  }
}

/** The network error's code (ECONNREFUSED, ENOTFOUND…) when a request never reached the server. */
function networkCode(error: unknown): string | undefined {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code
  }
  return error instanceof TypeError && error.message === 'fetch failed' ? 'fetch failed' : undefined
}

export interface Reported {
  exitCode: number
  message: string
  code?: string | undefined
}

/** Any error a command throws, as one line that says what to do, and its exit code. Never a stack trace. */
export function describeError(error: unknown): Reported {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message }
  if (error instanceof SignetError) {
    const code = error.code ?? `HTTP ${error.status}`
    return {
      exitCode: error.status === 401 ? EXIT.auth : EXIT.failed,
      message: `Signet refused: ${error.error} (${code}) — ${hintFor(error)}.`,
      code: error.code,
    }
  }
  const network = networkCode(error)
  if (network) {
    const url = serverUrl() ?? 'the server'
    return {
      exitCode: EXIT.unreachable,
      message: `Cannot reach Signet at ${url} (${network}) — is the server running? Set SIGNET_URL, or run \`signet login --url <url>\`.`,
      code: network,
    }
  }
  const text = error instanceof Error ? error.message : String(error)
  return { exitCode: EXIT.failed, message: `signet failed: ${text} (set SIGNET_DEBUG=1 for details)` }
}

/** Prints the error on stderr (as JSON with --json) and returns the exit code. */
export function reportError(error: unknown, json: boolean): number {
  const reported = describeError(error)
  if (json)
    process.stderr.write(`${JSON.stringify({ error: reported.message, ...(reported.code ? { code: reported.code } : {}), exit_code: reported.exitCode })}\n`)
  else process.stderr.write(`${reported.message}\n`)
  if (process.env.SIGNET_DEBUG === '1' && error instanceof Error) process.stderr.write(`${error.stack ?? ''}\n`)
  return reported.exitCode
}

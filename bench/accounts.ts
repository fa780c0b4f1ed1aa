/**
 * Signing in with a second factor, and the server under a sign-up flood (issue 18): the whole
 * sign-in of an account with an authenticator app (password, then code: two requests) against
 * the password-only sign-in, each account signing in once; and /healthz, polled from a child
 * process, while 200 sign-ups sent at once by another child process are answered and the
 * accounts they ask for are made.
 */
import { systemClock } from '../packages/server/src/adapters/clock.ts'
import { attackFromOutside } from '../packages/server/test/helpers/health-watch.ts'
import { createSignedInUser } from '../packages/server/test/helpers/session.ts'
import { anonymousBrowser, enableTotp, totpCode } from '../packages/server/test/helpers/two-factor.ts'
import { startSignet, type Backend, type LogLevel } from './targets.ts'

export interface AccountsBenchResult {
  backend: string
  runs: number
  sign_in_median_ms: number
  sign_in_totp_median_ms: number
  flood: {
    sign_ups: number
    accepted: number
    busy: number
    other: number
    healthz_answers: number
    healthz_p50_ms: number
    healthz_p99_ms: number
    healthz_max_ms: number
  }
}

export const FLOOD_SIGN_UPS = 200
/** The target for /healthz's p99 while the sign-ups arrive. */
export const FLOOD_HEALTHZ_P99_TARGET_MS = 100
/** How long /healthz is still polled after the last answer: the accounts are made after the answers. */
const SETTLE_MS = 3000

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}
const median = (values: number[]): number => percentile(values, 50)

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now()
  await work()
  return Math.round((performance.now() - started) * 10) / 10
}

export async function measureAccounts(backend: Backend, level: LogLevel, runs: number): Promise<AccountsBenchResult> {
  const target = await startSignet(backend, level)
  try {
    const plain = await Promise.all(Array.from({ length: runs }, () => createSignedInUser(target, { baseUrl: target.url })))
    const withTotp = []
    for (let i = 0; i < runs; i++) {
      const user = await createSignedInUser(target, { baseUrl: target.url })
      withTotp.push({ ...user, ...(await enableTotp(user.fetch, user.password, systemClock)) })
    }
    const plainTimes: number[] = []
    const totpTimes: number[] = []
    // Interleaved, so whatever else loads the machine weighs on both alike.
    for (let i = 0; i < runs; i++) {
      const p = plain[i]
      const t = withTotp[i]
      if (!p || !t) break
      plainTimes.push(
        await timed(async () => {
          const answer = await anonymousBrowser(target.url).logIn(p.email, p.password)
          if (answer.status !== 200) throw new Error(`sign-in answered ${answer.status}: ${await answer.text()}`)
        }),
      )
      totpTimes.push(
        await timed(async () => {
          const browser = anonymousBrowser(target.url)
          const step = await browser.logIn(t.email, t.password)
          if (step.status !== 202) throw new Error(`sign-in answered ${step.status}: ${await step.text()}`)
          // The set-up used this step's code: the app's next one (accepted within the drift window) signs in.
          const done = await browser.post('/api/v1/auth/second-factor/totp', { code: totpCode(t.secret, systemClock, 1) })
          if (done.status !== 200) throw new Error(`the code answered ${done.status}: ${await done.text()}`)
        }),
      )
    }

    const requests = Array.from({ length: FLOOD_SIGN_UPS }, (_, i) => ({
      url: `${target.url}/api/v1/auth/signup`,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(
        JSON.stringify({ email: `flood-${i}-${Date.now()}@example.com`, password: 'a long enough passphrase', name: `Flood ${i}`, workspace_name: 'Flood' }),
      ),
    }))
    const flood = await attackFromOutside(target.url, requests, { settleMs: SETTLE_MS })
    const statuses = flood.result.map((answer) => answer.status)
    return {
      backend: target.kind,
      runs,
      sign_in_median_ms: median(plainTimes),
      sign_in_totp_median_ms: median(totpTimes),
      flood: {
        sign_ups: FLOOD_SIGN_UPS,
        accepted: statuses.filter((s) => s === 202).length,
        busy: statuses.filter((s) => s === 503).length,
        other: statuses.filter((s) => s !== 202 && s !== 503).length,
        healthz_answers: flood.answered,
        healthz_p50_ms: median(flood.durationsMs),
        healthz_p99_ms: percentile(flood.durationsMs, 99),
        healthz_max_ms: flood.slowestMs,
      },
    }
  } finally {
    await target.close()
  }
}

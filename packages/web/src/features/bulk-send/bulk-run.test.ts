import { describe, expect, it } from 'vitest'
import { ApiError } from '../../api/client.ts'
import { BATCH_SIZE, recipientAt, runBulkSend, type BulkProgress, type BulkSendResult } from './bulk-run.ts'
import type { Recipient } from './recipients-csv.ts'

const people = (count: number): Recipient[] => Array.from({ length: count }, (_, i) => ({ email: `p${i}@example.com`, name: `P${i}` }))
const allSent = (batch: Recipient[]): BulkSendResult => ({
  sent: batch.length,
  documents: batch.map((r, i) => ({ documentId: `d-${r.email}-${i}`, email: r.email })),
})

describe('sending a bulk list in batches', () => {
  it('sends every batch and reports progress after each', async () => {
    const progress: BulkProgress[] = []
    const batches: number[] = []
    const outcome = await runBulkSend(
      people(BATCH_SIZE * 2 + 10),
      async (batch) => (batches.push(batch.length), allSent(batch)),
      (p) => progress.push(p),
    )
    expect(batches).toEqual([BATCH_SIZE, BATCH_SIZE, 10])
    expect(outcome.sent).toHaveLength(BATCH_SIZE * 2 + 10)
    expect(progress.map((p) => p.done)).toEqual([0, BATCH_SIZE, BATCH_SIZE * 2, BATCH_SIZE * 2 + 10])
  })

  it('keeps time-skipped recipients (with their names) for a resubmit and goes on', async () => {
    const list = people(BATCH_SIZE + 2)
    const outcome = await runBulkSend(
      list,
      async (batch) => {
        const [late, ...rest] = [...batch].reverse()
        return { ...allSent(rest), skipped_timeout_reached: late ? [late.email.toUpperCase()] : [] }
      },
      () => {},
    )
    expect(outcome.skippedForTime).toEqual([list[BATCH_SIZE - 1], list[BATCH_SIZE + 1]])
    expect(outcome.sent).toHaveLength(BATCH_SIZE)
  })

  it('stops at the cap: the rest of that batch and every later batch are skipped for cap', async () => {
    const list = people(BATCH_SIZE * 3)
    let calls = 0
    const outcome = await runBulkSend(
      list,
      async (batch) => {
        calls++
        if (calls === 1) return allSent(batch)
        return { ...allSent(batch.slice(0, 5)), skipped_cap_reached: batch.slice(5).map((r) => r.email) }
      },
      () => {},
    )
    expect(calls).toBe(2)
    expect(outcome.sent).toHaveLength(BATCH_SIZE + 5)
    expect(outcome.skippedForCap).toEqual(list.slice(BATCH_SIZE + 5))
  })

  it('stops at a failed request and keeps its error and every unsent recipient', async () => {
    const list = people(BATCH_SIZE + 1)
    const failure = new Error('Bulk-send is available on the Team plan and higher.')
    const outcome = await runBulkSend(
      list,
      async (batch) => (batch.length === 1 ? Promise.reject(failure) : allSent(batch)),
      () => {},
    )
    expect(outcome.error).toBe(failure)
    expect(outcome.notSent).toEqual(list.slice(BATCH_SIZE))
  })

  it('gives each batch its own Idempotency-Key and repeats a batch whose answer was lost once, with the same key', async () => {
    const keys: string[] = []
    let lost = true
    const outcome = await runBulkSend(
      people(BATCH_SIZE + 1),
      async (batch, key) => {
        keys.push(key)
        if (batch.length === 1 && lost) {
          lost = false
          throw new ApiError(0, 'The server could not be reached.', null)
        }
        return allSent(batch)
      },
      () => {},
    )
    expect(outcome.sent).toHaveLength(BATCH_SIZE + 1)
    expect(outcome.error).toBeNull()
    expect(keys).toHaveLength(3)
    expect(keys[1]).not.toBe(keys[0])
    expect(keys[2]).toBe(keys[1])
  })

  it('does not repeat a batch the server refused', async () => {
    let calls = 0
    const outcome = await runBulkSend(
      people(3),
      async () => {
        calls++
        throw new ApiError(400, 'Invalid recipients.', { error: 'Invalid recipients.' })
      },
      () => {},
    )
    expect(calls).toBe(1)
    expect(outcome.notSent).toHaveLength(3)
  })

  it('finds the recipient a refusal points at, counted in the refused batch', async () => {
    const list = people(BATCH_SIZE + 3)
    const refusal = new ApiError(400, 'recipients[1].name must not contain invisible characters', { code: 'validation_failed', field: '/recipients/1/name' })
    const outcome = await runBulkSend(
      list,
      async (batch) => (batch.length === 3 ? Promise.reject(refusal) : allSent(batch)),
      () => {},
    )
    expect(recipientAt(outcome, '/recipients/1/name')).toEqual(list[BATCH_SIZE + 1])
    expect(recipientAt(outcome, '/template_id')).toBeUndefined()
    expect(recipientAt(outcome, '/recipients')).toBeUndefined()
  })
})

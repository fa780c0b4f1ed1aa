import { describe, expect, it } from 'vitest'
import { retryWrite } from '../../src/lib/retry-write.ts'

describe('retryWrite', () => {
  it('tries again after each failure, pausing longer each time, and returns what the write returned', async () => {
    const failures = [new Error('connection terminated'), new Error('the database system is starting up')]
    const retried: unknown[] = []
    const startedAt = performance.now()
    const result = await retryWrite(
      async () => {
        const failure = failures.shift()
        if (failure) throw failure
        return 'recorded'
      },
      (error) => retried.push(error),
    )
    expect(result).toBe('recorded')
    expect(retried.map((error) => (error as Error).message)).toEqual(['connection terminated', 'the database system is starting up'])
    // 250 ms, then 500 ms.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(700)
  })

  it('gives up once its pauses are spent and throws the last failure', async () => {
    let tries = 0
    await expect(
      retryWrite(
        async () => {
          tries++
          throw new Error(`refused ${tries}`)
        },
        () => {},
        [1, 2, 3],
      ),
    ).rejects.toThrow('refused 4')
    expect(tries).toBe(4)
  })
})

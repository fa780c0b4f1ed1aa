import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'

/**
 * A temporary folder for one suite's files, so external tools can open them: made before
 * the suite's tests, removed after. Call at the top level of a test file.
 */
export function scratchFiles(prefix: string): { save(bytes: Uint8Array): string; path(name: string): string } {
  let dir = ''
  let files = 0
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `signet-${prefix}-`))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return {
    save(bytes) {
      const file = join(dir, `out-${++files}.pdf`)
      writeFileSync(file, bytes)
      return file
    },
    path: (name) => join(dir, name),
  }
}

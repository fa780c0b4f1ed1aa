import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export async function tempDir(
  prefix = 'signet-verify-',
): Promise<{ dir: string; file: (name: string, bytes: Uint8Array | string) => Promise<string>; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  return {
    dir,
    file: async (name, bytes) => {
      const path = join(dir, name)
      await writeFile(path, bytes)
      return path
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  }
}

/** pdfsig's report (its exit code is 0 even on a digest mismatch, so only the text counts). */
export async function pdfsig(file: string): Promise<string> {
  const result = await run('pdfsig', ['-no-ocsp', file], { encoding: 'utf8' }).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? '',
  }))
  return `${result.stdout}\n${result.stderr}`
}

/** A revocation provider that never goes to the network (our test certificates have no AIA anyway). */
export const offlineRevocation = { getOCSP: () => Promise.resolve(null), getCRL: () => Promise.resolve(null) }

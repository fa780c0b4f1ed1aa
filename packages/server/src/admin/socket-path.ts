import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Unix socket paths are limited to ~107 bytes; a long DATA_DIR falls back to a per-directory name in the temp dir. */
const MAX_SOCKET_PATH = 100

export function adminSocketPath(dataDir: string): string {
  const inDataDir = join(dataDir, 'admin.sock')
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH) return inDataDir
  return join(tmpdir(), `signet-admin-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`)
}

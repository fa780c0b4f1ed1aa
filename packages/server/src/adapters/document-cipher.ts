import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Config } from '../config.ts'
import { AppError } from '../errors.ts'
import type { Logger } from '../lib/logger.ts'

/** Encrypts personal data at rest (identity documents) with AES-256-GCM. */
export interface DocumentCipher {
  /** IV ‖ ciphertext ‖ tag. `context` (e.g. the row's id) is authenticated: the result opens only with the same context. */
  encrypt(plain: Uint8Array, context: string): Promise<Buffer>
  decrypt(sealed: Uint8Array, context: string): Promise<Buffer>
}

const IV_BYTES = 12
const TAG_BYTES = 16
export const DOCUMENT_KEY_FILE = 'identity-document.key'

/**
 * The key is IDENTITY_DOCUMENT_KEY, or else a key generated once (on first use) in
 * DATA_DIR/identity-document.key with mode 0600. That file is only on this server: with
 * several servers on one PostgreSQL, each would make its own and could not read the others'
 * documents, hence the warning.
 */
export function documentCipherFor(config: Pick<Config, 'identityDocumentKey' | 'dataDir' | 'databaseUrl'>, logger: Logger): DocumentCipher {
  let key: Promise<Buffer> | undefined
  const keyOnce = () => (key ??= config.identityDocumentKey ? Promise.resolve(config.identityDocumentKey) : keyFile(config, logger))

  return {
    async encrypt(plain, context) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', await keyOnce(), iv)
      cipher.setAAD(Buffer.from(context))
      const body = Buffer.concat([cipher.update(plain), cipher.final()])
      return Buffer.concat([iv, body, cipher.getAuthTag()])
    },
    async decrypt(sealed, context) {
      const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
      const decipher = createDecipheriv('aes-256-gcm', await keyOnce(), bytes.subarray(0, IV_BYTES))
      decipher.setAAD(Buffer.from(context))
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
      try {
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()])
      } catch {
        throw new AppError(
          'precondition_failed',
          "This document cannot be decrypted with this server's key: it was stored by a server with another IDENTITY_DOCUMENT_KEY (or key file).",
        )
      }
    },
  }
}

async function keyFile(config: Pick<Config, 'dataDir' | 'databaseUrl'>, logger: Logger): Promise<Buffer> {
  const path = join(config.dataDir, DOCUMENT_KEY_FILE)
  await mkdir(config.dataDir, { recursive: true })
  try {
    // 'wx': never overwrite a key another start (or process) already wrote.
    await writeFile(path, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 })
    const warning = config.databaseUrl ? ' With several servers on one PostgreSQL database, set IDENTITY_DOCUMENT_KEY on every server instead.' : ''
    logger.warn(`Generated the identity-document key ${path} (keep it with the data: documents awaiting a decision need it).${warning}`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const stored = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64')
  if (stored.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`)
  return stored
}

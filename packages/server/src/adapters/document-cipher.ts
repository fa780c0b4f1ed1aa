import { createCipheriv, createDecipheriv, randomBytes, type Cipher, type Decipher } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Config } from '../config.ts'
import { AppError } from '../errors.ts'
import type { Logger } from '../lib/logger.ts'

/**
 * Encrypts identity documents at rest so that each can be destroyed on its own (crypto-shredding):
 * every document has its own random AES-256 key; that key is stored wrapped with the instance's key
 * (IDENTITY_DOCUMENT_KEY or the key file), apart from the ciphertext. Deleting the wrapped key makes
 * every copy of the ciphertext unreadable, including copies this server cannot reach (backups of the
 * blob store, dead row versions, WAL).
 */
export interface DocumentCipher {
  /** Encrypts under a fresh key. `context` (the check id) is authenticated: the result opens only with the same context. */
  seal(plain: Uint8Array, context: string): Promise<SealedDocument>
  open(sealed: SealedDocument, context: string): Promise<Buffer>
  /** A document stored before per-document keys: IV ‖ ciphertext ‖ tag under the instance key itself. */
  openLegacy(ciphertext: Uint8Array, context: string): Promise<Buffer>
}

export interface SealedDocument {
  /** IV ‖ ciphertext ‖ tag under the document's own key: what the blob store keeps. */
  ciphertext: Uint8Array
  /** The document's key, IV ‖ ciphertext ‖ tag under the instance key: what identity_document_keys keeps. */
  wrappedKey: Uint8Array
}

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
/** Bytes encrypted between two turns of the event loop (about a millisecond each). */
const SLICE_BYTES = 1024 * 1024
export const DOCUMENT_KEY_FILE = 'identity-document.key'

/** A wrapped key's associated data differs from its document's, so neither can stand in for the other. */
const keyContext = (context: string): string => `identity-document-key:${context}`

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/**
 * AES-256-GCM (a stream mode: each slice of input gives as many bytes out) one slice per turn
 * of the event loop, written into one buffer allocated up front: megabytes never hold the loop,
 * not even to join the pieces.
 */
async function applySlices(cipher: Cipher | Decipher, input: Uint8Array, output: Buffer, at: number): Promise<number> {
  let written = at
  for (let offset = 0; offset < input.byteLength; offset += SLICE_BYTES) {
    if (offset > 0) await nextTurn()
    written += cipher.update(input.subarray(offset, offset + SLICE_BYTES)).copy(output, written)
  }
  return written
}

/** IV ‖ ciphertext ‖ tag. */
async function encrypt(key: Uint8Array, plain: Uint8Array, context: string): Promise<Buffer> {
  const sealed = Buffer.allocUnsafeSlow(IV_BYTES + plain.byteLength + TAG_BYTES)
  const iv = randomBytes(IV_BYTES)
  iv.copy(sealed)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(context))
  let written = await applySlices(cipher, plain, sealed, IV_BYTES)
  written += cipher.final().copy(sealed, written)
  cipher.getAuthTag().copy(sealed, written)
  return sealed
}

/** The plaintext, or undefined when the key or context is not the one it was sealed with (or the bytes were altered). */
async function decrypt(key: Uint8Array, sealed: Uint8Array, context: string): Promise<Buffer | undefined> {
  if (sealed.byteLength < IV_BYTES + TAG_BYTES) return undefined
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES))
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(sealed.subarray(sealed.byteLength - TAG_BYTES))
  const plain = Buffer.allocUnsafeSlow(sealed.byteLength - IV_BYTES - TAG_BYTES)
  await applySlices(decipher, sealed.subarray(IV_BYTES, sealed.byteLength - TAG_BYTES), plain, 0)
  try {
    decipher.final()
  } catch {
    return undefined
  }
  return plain
}

const foreignKey = () =>
  new AppError(
    'precondition_failed',
    "This document cannot be decrypted with this server's key: it was stored by a server with another IDENTITY_DOCUMENT_KEY (or key file).",
  )

/**
 * The instance key is IDENTITY_DOCUMENT_KEY, or else a key generated once (on first use) in
 * DATA_DIR/identity-document.key with mode 0600. That file is only on this server: with
 * several servers on one PostgreSQL, each would make its own and could not read the others'
 * documents or TOTP secrets, hence the warning. Returns a loader that reads it once.
 */
export function instanceKeyFor(config: Pick<Config, 'identityDocumentKey' | 'dataDir' | 'databaseUrl'>, logger: Logger): () => Promise<Buffer> {
  let instanceKey: Promise<Buffer> | undefined
  return () => (instanceKey ??= config.identityDocumentKey ? Promise.resolve(config.identityDocumentKey) : keyFile(config, logger))
}

export function documentCipherFor(instanceKeyOnce: () => Promise<Buffer>): DocumentCipher {
  return {
    async seal(plain, context) {
      const documentKey = randomBytes(KEY_BYTES)
      try {
        const ciphertext = await encrypt(documentKey, plain, context)
        const wrappedKey = await encrypt(await instanceKeyOnce(), documentKey, keyContext(context))
        return { ciphertext, wrappedKey }
      } finally {
        documentKey.fill(0)
      }
    },
    async open(sealed, context) {
      const documentKey = await decrypt(await instanceKeyOnce(), sealed.wrappedKey, keyContext(context))
      if (!documentKey) throw foreignKey()
      try {
        const plain = await decrypt(documentKey, sealed.ciphertext, context)
        if (!plain) throw new Error(`the identity document of check ${context} does not match its key (altered in the blob store?)`)
        return plain
      } finally {
        documentKey.fill(0)
      }
    },
    async openLegacy(ciphertext, context) {
      const plain = await decrypt(await instanceKeyOnce(), ciphertext, context)
      if (!plain) throw foreignKey()
      return plain
    },
  }
}

/** Encrypts small secrets at rest (TOTP secrets) with the instance key; `context` (e.g. the user) is authenticated. */
export interface SecretSealer {
  encrypt(plain: Uint8Array, context: string): Promise<Buffer>
  decrypt(sealed: Uint8Array, context: string): Promise<Buffer>
}

export function secretSealerFor(instanceKeyOnce: () => Promise<Buffer>): SecretSealer {
  return {
    encrypt: async (plain, context) => encrypt(await instanceKeyOnce(), plain, `secret:${context}`),
    async decrypt(sealed, context) {
      const plain = await decrypt(await instanceKeyOnce(), sealed, `secret:${context}`)
      if (!plain) {
        throw new AppError(
          'precondition_failed',
          "This secret cannot be decrypted with this server's key (IDENTITY_DOCUMENT_KEY or its key file changed). Ask the operator to reset your second factor.",
        )
      }
      return plain
    },
  }
}

async function keyFile(config: Pick<Config, 'dataDir' | 'databaseUrl'>, logger: Logger): Promise<Buffer> {
  const path = join(config.dataDir, DOCUMENT_KEY_FILE)
  await mkdir(config.dataDir, { recursive: true })
  try {
    // 'wx': never overwrite a key another start (or process) already wrote.
    await writeFile(path, randomBytes(KEY_BYTES).toString('base64') + '\n', { flag: 'wx', mode: 0o600 })
    const warning = config.databaseUrl ? ' With several servers on one PostgreSQL database, set IDENTITY_DOCUMENT_KEY on every server instead.' : ''
    logger.warn(`Generated the identity-document key ${path} (documents awaiting a decision need it; back it up apart from the database).${warning}`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const stored = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64')
  if (stored.length !== KEY_BYTES) throw new Error(`${path} does not hold a 32-byte base64 key`)
  return stored
}

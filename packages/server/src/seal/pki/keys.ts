import { createPrivateKey, createPublicKey, webcrypto } from 'node:crypto'
import type * as pkijs from 'pkijs'
import { encodeDer } from './der.ts'
import { toPem } from './pem.ts'

const { subtle } = webcrypto

/** P-256: ECDSA signatures cost well under a millisecond, which keeps sealing fast. */
const CURVE = { name: 'ECDSA', namedCurve: 'P-256' } as const

export const generateKeyPair = (): Promise<webcrypto.CryptoKeyPair> => subtle.generateKey(CURVE, true, ['sign', 'verify'])

export async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return toPem(new Uint8Array(await subtle.exportKey('pkcs8', key)), 'PRIVATE KEY')
}

const WEB_CRYPTO_CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' }

/** Imports a PKCS#8 PEM EC key for signing (non-extractable: it never leaves this process again). */
export async function importSigningKey(pem: string): Promise<webcrypto.CryptoKey> {
  const key = createPrivateKey(pem)
  const namedCurve = WEB_CRYPTO_CURVES[key.asymmetricKeyDetails?.namedCurve ?? '']
  if (key.asymmetricKeyType !== 'ec' || !namedCurve) throw new Error('expected an ECDSA private key on P-256, P-384 or P-521')
  return subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), { name: 'ECDSA', namedCurve }, false, ['sign'])
}

/**
 * Refuses a key that does not belong to the certificate: signing would "work" and every
 * signature would fail verification, discovered only by whoever checks a document.
 */
export function assertKeyMatchesCertificate(privateKey: string, certificate: pkijs.Certificate, what: string): void {
  const fromKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' })
  const fromCertificate = encodeDer(certificate.subjectPublicKeyInfo.toSchema())
  if (!fromKey.equals(fromCertificate)) throw new Error(`the ${what} private key does not match its certificate`)
}

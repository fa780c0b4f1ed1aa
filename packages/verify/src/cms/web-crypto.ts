import { children, content, readDer, TAG, expect } from '../asn1/der.ts'
import { CURVES, OID, UnsupportedAlgorithmError, type AlgorithmIdentifier, type SignatureScheme } from './algorithms.ts'
import { oid } from '../asn1/der.ts'
import { bufferSource, latin1 } from '../util/bytes.ts'

/**
 * Signature checks with Web Crypto (native in Node and browsers). ECDSA signatures in
 * CMS and X.509 are DER SEQUENCE { r, s }; Web Crypto wants r‖s, each padded to the
 * curve size (IEEE P1363), so they are converted first.
 */

export interface PublicKeyInfo {
  /** SubjectPublicKeyInfo DER. */
  spki: Uint8Array
  keyAlgorithm: AlgorithmIdentifier
}

function curveOf(key: PublicKeyInfo): (typeof CURVES)[string] {
  const params = key.keyAlgorithm.params
  const curve = params && params.tag === TAG.OID ? CURVES[oid(params)] : undefined
  if (!curve) throw new UnsupportedAlgorithmError('unsupported elliptic curve')
  return curve
}

/** DER ECDSA-Sig-Value to fixed-size r‖s. Returns null when the encoding is malformed. */
export function derToP1363(signature: Uint8Array, size: number): Uint8Array | null {
  try {
    const sequence = readDer(signature)
    if (sequence.end !== signature.length) return null
    const [r, s, extra] = children(expect(sequence, TAG.SEQUENCE, 'ECDSA signature'))
    if (!r || !s || extra || r.tag !== TAG.INTEGER || s.tag !== TAG.INTEGER) return null
    const out = new Uint8Array(size * 2)
    for (const [index, part] of [r, s].entries()) {
      let bytes = content(part)
      while (bytes.length > 0 && bytes[0] === 0) bytes = bytes.subarray(1)
      if (bytes.length > size) return null
      out.set(bytes, index * size + size - bytes.length)
    }
    return out
  } catch {
    return null
  }
}

const keyCache = new Map<string, Promise<CryptoKey>>()

function importKey(key: PublicKeyInfo, scheme: SignatureScheme): Promise<CryptoKey> {
  let algorithm: RsaHashedImportParams | EcKeyImportParams
  if (scheme.kind === 'ECDSA') {
    if (key.keyAlgorithm.oid !== OID.ecPublicKey) throw new UnsupportedAlgorithmError('ECDSA signature with a non-EC key')
    algorithm = { name: 'ECDSA', namedCurve: curveOf(key).name }
  } else {
    if (key.keyAlgorithm.oid !== OID.rsaEncryption && key.keyAlgorithm.oid !== OID.rsaPss)
      throw new UnsupportedAlgorithmError('RSA signature with a non-RSA key')
    algorithm = { name: scheme.kind, hash: scheme.hash }
  }
  let spki = key.spki
  if (key.keyAlgorithm.oid === OID.rsaPss) spki = asRsaEncryption(spki)
  // The whole key is part of the cache key: a partial one could be made to collide on purpose.
  const cacheKey = `${scheme.kind}:${scheme.hash}:${latin1(spki)}`
  let pending = keyCache.get(cacheKey)
  if (!pending) {
    pending = crypto.subtle.importKey('spki', bufferSource(spki), algorithm, false, ['verify'])
    keyCache.set(cacheKey, pending)
    if (keyCache.size > 256) keyCache.delete(keyCache.keys().next().value as string)
  }
  return pending
}

/** Web Crypto imports RSA keys only under rsaEncryption: rewrite an id-RSASSA-PSS SPKI to it (same key). */
function asRsaEncryption(spki: Uint8Array): Uint8Array {
  const [, bits] = children(readDer(spki))
  if (!bits) throw new UnsupportedAlgorithmError('bad RSA-PSS key')
  const algorithm = Uint8Array.from([0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00])
  const body = new Uint8Array(algorithm.length + (bits.end - bits.start))
  body.set(algorithm)
  body.set(spki.subarray(bits.start, bits.end), algorithm.length)
  return Uint8Array.from([...derHeader(0x30, body.length), ...body])
}

function derHeader(tag: number, length: number): number[] {
  if (length < 0x80) return [tag, length]
  const bytes: number[] = []
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff)
  return [tag, 0x80 | bytes.length, ...bytes]
}

/** Verifies `signature` over `data`. Throws UnsupportedAlgorithmError for keys or schemes we cannot check. */
export async function verifySignature(key: PublicKeyInfo, scheme: SignatureScheme, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
  const cryptoKey = await importKey(key, scheme).catch((error: unknown) => {
    throw new UnsupportedAlgorithmError(`cannot import the public key: ${error instanceof Error ? error.message : String(error)}`)
  })
  if (scheme.kind === 'ECDSA') {
    const p1363 = derToP1363(signature, curveOf(key).size)
    if (!p1363) return false
    return crypto.subtle.verify({ name: 'ECDSA', hash: scheme.hash }, cryptoKey, bufferSource(p1363), bufferSource(data))
  }
  if (scheme.kind === 'RSA-PSS')
    return crypto.subtle.verify({ name: 'RSA-PSS', saltLength: scheme.saltLength }, cryptoKey, bufferSource(signature), bufferSource(data))
  return crypto.subtle.verify({ name: 'RSASSA-PKCS1-v1_5' }, cryptoKey, bufferSource(signature), bufferSource(data))
}

import { parseCertificate, spkiPin, type Certificate } from '../x509/certificate.ts'
import { fromBase64, latin1 } from '../util/bytes.ts'
import { children, expect, readDer, TAG } from '../asn1/der.ts'

/**
 * Trust anchors are public keys, pinned by the SHA-256 of their SubjectPublicKeyInfo.
 * A certificate given as an anchor contributes its key's pin (its name is irrelevant,
 * so a look-alike certificate with the same subject and another key is not trusted)
 * and is offered to chain building, so the file need not embed the root.
 */
export interface TrustAnchors {
  pins: Set<string>
  certificates: Certificate[]
  /** Inputs that could not be read; they trust nothing. */
  problems: string[]
}

const PIN = /^sha256\/([A-Za-z0-9+/]{43}=)$/
const PEM = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g

interface PemBlock {
  label: string
  der: Uint8Array
}

export function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(PEM)].map((match) => ({ label: match[1] ?? '', der: fromBase64(match[2] ?? '') }))
}

function looksLikePem(bytes: Uint8Array): boolean {
  return latin1(bytes, 0, Math.min(bytes.length, 64)).includes('-----BEGIN')
}

/** Is `der` a bare SubjectPublicKeyInfo (SEQUENCE { AlgorithmIdentifier, BIT STRING })? */
function isSpki(der: Uint8Array): boolean {
  try {
    const top = readDer(der)
    const [algorithm, key, extra] = children(expect(top, TAG.SEQUENCE, 'SubjectPublicKeyInfo'))
    return top.end === der.length && algorithm?.tag === TAG.SEQUENCE && key?.tag === TAG.BIT_STRING && extra === undefined
  } catch {
    return false
  }
}

async function addDer(anchors: TrustAnchors, der: Uint8Array, label: string): Promise<void> {
  if (label === 'PUBLIC KEY' || (label === '' && isSpki(der))) {
    anchors.pins.add(await spkiPin(der))
    return
  }
  const certificate = await parseCertificate(der)
  anchors.pins.add(certificate.spkiPin)
  anchors.certificates.push(certificate)
}

/** Reads trust anchors; never throws (unreadable entries are reported in `problems` and trust nothing). */
export async function loadTrustAnchors(inputs: readonly (string | Uint8Array)[] = []): Promise<TrustAnchors> {
  const anchors: TrustAnchors = { pins: new Set(), certificates: [], problems: [] }
  for (const [index, input] of inputs.entries()) {
    const where = `trust anchor #${index + 1}`
    try {
      const text = typeof input === 'string' ? input.trim() : looksLikePem(input) ? new TextDecoder().decode(input) : null
      if (text !== null) {
        const pin = PIN.exec(text)
        if (pin) {
          anchors.pins.add(text)
          continue
        }
        const blocks = pemBlocks(text).filter((block) => block.label === 'CERTIFICATE' || block.label === 'TRUSTED CERTIFICATE' || block.label === 'PUBLIC KEY')
        if (blocks.length === 0) throw new Error('neither a sha256/ pin nor PEM with a CERTIFICATE or PUBLIC KEY')
        for (const block of blocks) await addDer(anchors, block.der, block.label === 'PUBLIC KEY' ? 'PUBLIC KEY' : 'CERTIFICATE')
      } else {
        await addDer(anchors, input as Uint8Array, '')
      }
    } catch (error) {
      anchors.problems.push(`${where} ignored: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return anchors
}

/** 'sha256/<base64>' pin of the public key of a certificate (PEM or DER), or of a PEM/DER public key. */
export async function publicKeyPin(certificate: string | Uint8Array): Promise<string> {
  const anchors = await loadTrustAnchors([certificate])
  const [first] = anchors.problems
  if (first !== undefined) throw new TypeError(first.replace(/^trust anchor #1 ignored: /, ''))
  const [pin] = anchors.certificates.length > 0 ? [anchors.certificates[0]?.spkiPin] : [...anchors.pins]
  if (!pin) throw new TypeError('no certificate or public key found')
  return pin
}

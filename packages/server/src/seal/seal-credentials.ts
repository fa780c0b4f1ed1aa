import { randomBytes, verify, X509Certificate } from 'node:crypto'
import { CryptoKeySigner, P12Signer, type Signer } from '@libpdf/core'
import type { InstancePki } from '../db/schema.ts'
import { certificateFromPem, commonName, parseCertificate } from './pki/certificates.ts'
import { assertKeyMatchesCertificate, importSigningKey } from './pki/keys.ts'
import { fromPem, toPem } from './pki/pem.ts'

/** The instance's seal: what signs every completed and self-sealed PDF. */
export interface SealCredentials {
  /** certificateChain runs up to and including the root, so verifiers can build the path from the PDF alone. */
  signer: Signer
  certificatePem: string
  /** The chain's self-signed root (published at /.well-known/signet-root.pem), or null if the P12 has none. */
  rootCertificatePem: string | null
  /** The seal certificate's CN, for display. */
  subjectName: string
}

function subjectNameOf(der: Uint8Array): string {
  return commonName(parseCertificate(der).subject) ?? new X509Certificate(der).subject.replaceAll('\n', ', ')
}

export async function sealCredentialsFromPki(pki: InstancePki): Promise<SealCredentials> {
  assertKeyMatchesCertificate(pki.sealPrivateKeyPem, certificateFromPem(pki.sealCertificatePem), 'seal')
  const certificate = fromPem(pki.sealCertificatePem, 'CERTIFICATE')
  const root = fromPem(pki.rootCertificatePem, 'CERTIFICATE')
  return {
    signer: new CryptoKeySigner(await importSigningKey(pki.sealPrivateKeyPem), certificate, 'EC', 'ECDSA', [root]),
    certificatePem: pki.sealCertificatePem,
    rootCertificatePem: pki.rootCertificatePem,
    subjectName: subjectNameOf(certificate),
  }
}

function p12Problem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  // pkijs reports a failed MAC check, which is what a wrong password produces, as broken integrity.
  if (/integrity|mac\b/i.test(message)) return 'wrong password (SEAL_P12_PASSWORD), or the file is damaged'
  if (/no private key/i.test(message)) return 'it contains no private key'
  if (/no certificates/i.test(message)) return 'it contains no certificate'
  return message
}

const isSelfSigned = (certificate: X509Certificate): boolean => certificate.checkIssued(certificate) && certificate.verify(certificate.publicKey)

/** Issuers of `leaf` found in `pool`, nearest first, ending at a self-signed root when the pool has one. */
function issuersOf(leaf: X509Certificate, pool: X509Certificate[]): X509Certificate[] {
  const issuers: X509Certificate[] = []
  let current = leaf
  while (!isSelfSigned(current)) {
    const child = current
    const issuer = pool.find(
      (candidate) => candidate !== leaf && !issuers.includes(candidate) && child.checkIssued(candidate) && child.verify(candidate.publicKey),
    )
    if (!issuer) break
    issuers.push(issuer)
    current = issuer
  }
  return issuers
}

/**
 * Opens a PKCS#12 seal file (OpenSSL 3's default AES-256-CBC/PBKDF2 and legacy ones).
 * Its certificate bags come in no guaranteed order, so the seal certificate is the one
 * whose key produced a probe signature, and its chain is rebuilt by issuer; unrelated
 * certificates in the file are left out of signatures.
 */
export async function sealCredentialsFromP12(p12: Uint8Array, password: string): Promise<SealCredentials> {
  let opened: P12Signer
  try {
    opened = await P12Signer.create(p12, password)
  } catch (error) {
    throw new Error(`cannot use the seal P12 (SEAL_P12): ${p12Problem(error)}`, { cause: error })
  }
  const pool = [opened.certificate, ...opened.certificateChain].map((der) => new X509Certificate(der))
  const probe = randomBytes(32)
  const probeSignature = await opened.sign(probe, 'SHA-256')
  const leaf = pool.find((certificate) => verify('sha256', probe, certificate.publicKey, probeSignature))
  if (!leaf) throw new Error('cannot use the seal P12 (SEAL_P12): its private key matches none of its certificates')

  const issuers = issuersOf(leaf, pool)
  const root = isSelfSigned(leaf) ? leaf : issuers.findLast(isSelfSigned)
  const certificate = new Uint8Array(leaf.raw)
  return {
    signer: {
      certificate,
      certificateChain: issuers.map((issuer) => new Uint8Array(issuer.raw)),
      keyType: opened.keyType,
      signatureAlgorithm: opened.signatureAlgorithm,
      sign: (data, algorithm) => opened.sign(data, algorithm),
    },
    certificatePem: leaf.toString(),
    rootCertificatePem: root ? toPem(new Uint8Array(root.raw), 'CERTIFICATE') : null,
    subjectName: subjectNameOf(certificate),
  }
}

import type * as pkijs from 'pkijs'
import { certificateDer } from './pki/certificates.ts'
import { basicConstraints, extendedKeyUsage, keyUsage } from './pki/extensions.ts'
import { distinguishedName, issueCertificate, keyIdentifier, type Issuer } from './pki/issue-certificate.ts'
import { generateKeyPair, privateKeyPem } from './pki/keys.ts'
import { OID } from './pki/oids.ts'
import { toPem } from './pki/pem.ts'
import type { InstancePki } from '../db/schema.ts'

const ROOT_YEARS = 25
/** Well inside the root's lifetime, so every seal certificate is renewed before its root expires. */
const LEAF_YEARS = 10

function yearsLater(date: Date, years: number): Date {
  const later = new Date(date)
  later.setUTCFullYear(later.getUTCFullYear() + years)
  return later
}

/** The common name of each certificate of an instance's PKI, e.g. "Signet (example.com) Time-Stamp Authority". */
export const certificateCommonName = (instanceName: string, role: 'Root CA' | 'Document Seal' | 'Time-Stamp Authority'): string => `${instanceName} ${role}`

export async function generateInstancePki(options: { instanceName: string; now: Date }): Promise<InstancePki> {
  const { instanceName } = options
  // X.509 validity has whole seconds only (RFC 5280 §4.1.2.5.2 forbids fractions).
  const notBefore = new Date(Math.floor(options.now.getTime() / 1000) * 1000)
  const name = (role: Parameters<typeof certificateCommonName>[1]) => distinguishedName(certificateCommonName(instanceName, role), instanceName)

  const rootKeys = await generateKeyPair()
  const rootName = name('Root CA')
  const root: Issuer = { name: rootName, keyIdentifier: await keyIdentifier(rootKeys.publicKey), privateKey: rootKeys.privateKey }
  const rootCertificate = await issueCertificate({
    subject: rootName,
    publicKey: rootKeys.publicKey,
    issuer: root,
    notBefore,
    notAfter: yearsLater(notBefore, ROOT_YEARS),
    // pathLength 0: the root issues end-entity certificates only, never another CA.
    extensions: [basicConstraints({ ca: true, pathLength: 0 }), keyUsage('keyCertSign', 'cRLSign')],
  })

  const issueLeaf = async (role: Parameters<typeof certificateCommonName>[1], extensions: pkijs.Extension[]) => {
    const keys = await generateKeyPair()
    const certificate = await issueCertificate({
      subject: name(role),
      publicKey: keys.publicKey,
      issuer: root,
      notBefore,
      notAfter: yearsLater(notBefore, LEAF_YEARS),
      extensions: [basicConstraints({ ca: false }), ...extensions],
    })
    return { certificatePem: toPem(certificateDer(certificate), 'CERTIFICATE'), privateKeyPem: await privateKeyPem(keys.privateKey) }
  }
  const seal = await issueLeaf('Document Seal', [keyUsage('digitalSignature', 'nonRepudiation')])
  // RFC 3161 §2.3: a TSA certificate has exactly one extended key usage, timeStamping, marked critical.
  const tsa = await issueLeaf('Time-Stamp Authority', [keyUsage('digitalSignature'), extendedKeyUsage([OID.timeStamping], { critical: true })])

  return {
    rootCertificatePem: toPem(certificateDer(rootCertificate), 'CERTIFICATE'),
    rootPrivateKeyPem: await privateKeyPem(rootKeys.privateKey),
    sealCertificatePem: seal.certificatePem,
    sealPrivateKeyPem: seal.privateKeyPem,
    tsaCertificatePem: tsa.certificatePem,
    tsaPrivateKeyPem: tsa.privateKeyPem,
  }
}

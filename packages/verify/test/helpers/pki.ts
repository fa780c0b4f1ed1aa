import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { CryptoKeySigner } from '@libpdf/core'
import { OPENSSL_CA_CONFIG } from '../../../../test-support/openssl-ca.ts'

/*
 * Test certificates made with OpenSSL: a self-made root and a leaf it signs, as the
 * service's seal uses (ECDSA P-256), or RSA. Everything lives in a temporary directory.
 */

const run = promisify(execFile)

const CONFIG = `${OPENSSL_CA_CONFIG}
[ leaf_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`

export type KeyKind = 'ec' | 'rsa'

export interface Identity {
  certFile: string
  keyFile: string
  certPem: string
  certDer: Uint8Array
  /** PKCS#8 DER of the private key. */
  keyDer: Uint8Array<ArrayBuffer>
}

export interface Pki {
  dir: string
  kind: KeyKind
  root: Identity
  leaf: Identity
  /** PKCS#12 of the leaf (with the root), password "test". */
  p12File: string
}

export async function openssl(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('openssl', args, { cwd: dir, encoding: 'utf8' })
  return stdout
}

async function keypair(dir: string, kind: KeyKind, file: string): Promise<void> {
  if (kind === 'ec') await openssl(dir, 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file)
  else await openssl(dir, 'genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', file)
}

async function identity(dir: string, prefix: string): Promise<Identity> {
  await openssl(dir, 'x509', '-in', `${prefix}.pem`, '-outform', 'DER', '-out', `${prefix}.der`)
  await openssl(dir, 'pkcs8', '-topk8', '-nocrypt', '-in', `${prefix}.key`, '-outform', 'DER', '-out', `${prefix}.p8`)
  return {
    certFile: join(dir, `${prefix}.pem`),
    keyFile: join(dir, `${prefix}.key`),
    certPem: await readFile(join(dir, `${prefix}.pem`), 'utf8'),
    certDer: new Uint8Array(await readFile(join(dir, `${prefix}.der`))),
    keyDer: new Uint8Array(await readFile(join(dir, `${prefix}.p8`))),
  }
}

/** A self-signed root. `reuseKeyFile` makes a look-alike root with an existing key. */
export async function createRoot(dir: string, prefix: string, subject: string, kind: KeyKind = 'ec'): Promise<Identity> {
  await writeFile(join(dir, 'openssl.cnf'), CONFIG)
  await keypair(dir, kind, `${prefix}.key`)
  await openssl(
    dir,
    'req',
    '-new',
    '-x509',
    '-config',
    'openssl.cnf',
    '-key',
    `${prefix}.key`,
    '-subj',
    subject,
    '-days',
    '30',
    '-extensions',
    'root_ext',
    '-out',
    `${prefix}.pem`,
  )
  return identity(dir, prefix)
}

/** A leaf certificate for document signing, issued by `issuer`. */
export async function createLeaf(dir: string, prefix: string, subject: string, issuer: Identity, kind: KeyKind = 'ec', days = 30): Promise<Identity> {
  await writeFile(join(dir, 'openssl.cnf'), CONFIG)
  await keypair(dir, kind, `${prefix}.key`)
  await openssl(dir, 'req', '-new', '-config', 'openssl.cnf', '-key', `${prefix}.key`, '-subj', subject, '-out', `${prefix}.csr`)
  await openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${prefix}.csr`,
    '-CA',
    issuer.certFile,
    '-CAkey',
    issuer.keyFile,
    '-CAcreateserial',
    '-days',
    String(days),
    '-extfile',
    'openssl.cnf',
    '-extensions',
    'leaf_ext',
    '-out',
    `${prefix}.pem`,
  )
  return identity(dir, prefix)
}

/**
 * A CA certificate with `issuer`'s own subject but a new key, signed by `issuer`'s key: the
 * link certificate of a key rollover (RFC 4210 "NewWithOld"), self-issued but not self-signed.
 */
export async function createRolloverCertificate(dir: string, prefix: string, subject: string, issuer: Identity): Promise<Identity> {
  await writeFile(join(dir, 'openssl.cnf'), CONFIG)
  await keypair(dir, 'ec', `${prefix}.key`)
  await openssl(dir, 'req', '-new', '-config', 'openssl.cnf', '-key', `${prefix}.key`, '-subj', subject, '-out', `${prefix}.csr`)
  await openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${prefix}.csr`,
    '-CA',
    issuer.certFile,
    '-CAkey',
    issuer.keyFile,
    '-CAcreateserial',
    '-days',
    '30',
    '-extfile',
    'openssl.cnf',
    '-extensions',
    'root_ext',
    '-out',
    `${prefix}.pem`,
  )
  return identity(dir, prefix)
}

export async function createPki(dir: string, kind: KeyKind = 'ec', name = 'Signet Test'): Promise<Pki> {
  const root = await createRoot(dir, `${kind}-root`, `/CN=${name} Root/O=Signet Tests`, kind)
  const leaf = await createLeaf(dir, `${kind}-leaf`, `/CN=${name} Seal/O=Signet Tests`, root, kind)
  const p12File = join(dir, `${kind}-leaf.p12`)
  await openssl(
    dir,
    'pkcs12',
    '-export',
    '-in',
    leaf.certFile,
    '-inkey',
    leaf.keyFile,
    '-certfile',
    root.certFile,
    '-name',
    'signet-seal',
    '-passout',
    'pass:test',
    '-out',
    p12File,
  )
  return { dir, kind, root, leaf, p12File }
}

export type RsaScheme = 'RSASSA-PKCS1-v1_5' | 'RSA-PSS'

/** A libpdf signer for the leaf, with the root as chain. RSA keys are bound to one hash by Web Crypto. */
export async function signerFor(
  leaf: Identity,
  chain: Identity[],
  kind: KeyKind,
  hash: 'SHA-256' | 'SHA-384' | 'SHA-512' = 'SHA-256',
  rsaScheme: RsaScheme = 'RSASSA-PKCS1-v1_5',
): Promise<CryptoKeySigner> {
  const chainDers = chain.map((identity) => identity.certDer)
  if (kind === 'ec') {
    const key = await crypto.subtle.importKey('pkcs8', leaf.keyDer, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign'])
    return new CryptoKeySigner(key, leaf.certDer, 'EC', 'ECDSA', chainDers)
  }
  const key = await crypto.subtle.importKey('pkcs8', leaf.keyDer, { name: rsaScheme, hash }, false, ['sign'])
  return new CryptoKeySigner(key, leaf.certDer, 'RSA', rsaScheme, chainDers)
}

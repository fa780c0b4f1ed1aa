import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PDF } from '@libpdf/core'
import type { CryptoKeySigner } from '@libpdf/core'
import { openssl, type Identity } from './pki.ts'
import { locateSignature, setByteRange, setContents, signedBytes } from './pdf.ts'

/** A detached CMS signature made by `openssl cms` (not by libpdf or us) over `data`. */
export async function opensslCmsSign(data: Uint8Array, signer: Identity, chain: Identity[], md = 'sha256', extra: string[] = []): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'signet-cms-'))
  await writeFile(join(dir, 'data.bin'), data)
  await writeFile(join(dir, 'chain.pem'), chain.map((identity) => identity.certPem).join(''))
  const args = [
    'cms',
    '-sign',
    '-binary',
    '-in',
    'data.bin',
    '-signer',
    signer.certFile,
    '-inkey',
    signer.keyFile,
    '-outform',
    'DER',
    '-md',
    md,
    '-out',
    'sig.der',
  ]
  if (chain.length > 0) args.push('-certfile', 'chain.pem')
  args.push(...extra)
  await openssl(dir, ...args)
  return new Uint8Array(await readFile(join(dir, 'sig.der')))
}

/** A PDF with an adbe.pkcs7.detached placeholder, made by letting libpdf sign it. */
export async function pkcs7Placeholder(base: Uint8Array, signer: CryptoKeySigner): Promise<Uint8Array> {
  const pdf = await PDF.load(base)
  const { bytes } = await pdf.sign({ signer, subFilter: 'adbe.pkcs7.detached', fieldName: 'OpenSSL' })
  return bytes
}

/**
 * Re-signs the last signature of `pdf` with OpenSSL over the bytes `byteRange` names
 * (written into the file first, same width), so the CMS is cryptographically valid
 * for exactly those bytes whatever they are.
 */
export async function resignWithOpenssl(
  pdf: Uint8Array,
  signer: Identity,
  chain: Identity[],
  byteRange?: readonly number[],
  index = 0,
  md = 'sha256',
  extra: string[] = [],
): Promise<Uint8Array> {
  let location = locateSignature(pdf, index)
  let bytes = pdf
  if (byteRange) {
    bytes = setByteRange(bytes, location, byteRange)
    location = { ...location, byteRange: [...byteRange] as [number, number, number, number] }
  }
  const cms = await opensslCmsSign(signedBytes(bytes, location.byteRange), signer, chain, md, extra)
  return setContents(bytes, location, cms)
}

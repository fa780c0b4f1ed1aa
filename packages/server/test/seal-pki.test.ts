import { execFile } from 'node:child_process'
import { createHash, createPrivateKey } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PDF, type DigestAlgorithm } from '@libpdf/core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Clock } from '../src/adapters/clock.ts'
import type { InstancePki } from '../src/db/schema.ts'
import { generateInstancePki } from '../src/seal/instance-pki.ts'
import { createLocalTsa } from '../src/seal/local-tsa.ts'
import { LOCAL_TSA_POLICY } from '../src/seal/pki/oids.ts'
import { lastSignatureContents } from '../src/seal/pki/pdf-signature-contents.ts'
import { signedDataOf } from '../src/seal/pki/signed-data.ts'
import { sealCredentialsFromP12, sealCredentialsFromPki, type SealCredentials } from '../src/seal/seal-credentials.ts'
import { lastSignatureTimestamp, readTimestampToken, signatureTimestampToken } from '../src/seal/timestamp-token.ts'
import { httpTimestampAuthority, timestampAuthorityChain, TimestampUnavailableError, type NamedTimestampAuthority } from '../src/seal/tsa-chain.ts'
import { startOpensslTsa } from '../../../test-support/openssl-tsa.ts'
import { haveTools } from '../../../test-support/tools.ts'
import { makePdf } from './helpers/pdf.ts'
import { closedPortUrl } from './helpers/seals.ts'

const execute = promisify(execFile)
const haveOpenssl = haveTools('openssl')
const haveOpensslAndPdfsig = haveTools('openssl', 'pdfsig')

/** stdout and stderr of a tool, whatever its exit code (pdfsig exits 0 on invalid signatures anyway). */
async function run(tool: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await execute(tool, args, { cwd })
    return stdout + stderr
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string }
    return `${failed.stdout ?? ''}${failed.stderr ?? ''}`
  }
}

const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash('sha256').update(data).digest())
const fixedClock = (date: Date): Clock => ({ now: () => date })

/** The way the sealer signs: PAdES B-T, ETSI.CAdES.detached. */
async function seal(pdf: Uint8Array, credentials: SealCredentials, timestampAuthority: NamedTimestampAuthority): Promise<Uint8Array> {
  const document = await PDF.load(pdf)
  const { bytes } = await document.sign({ signer: credentials.signer, level: 'B-T', timestampAuthority, reason: 'Sealed by Signet tests' })
  return bytes
}

/** An HTTP server that accepts requests and then stalls: before the headers, or after them, mid-body. */
async function stallingServer(stage: 'headers' | 'body'): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume()
    if (stage === 'body') response.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': '1000' }).write('0')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsr`, server }
}

let dir: string
let pki: InstancePki
const inDir = (file: string) => join(dir, file)
const pkiNow = new Date(Date.now() - 60_000)
// Milliseconds on purpose: genTime keeps them, and readTimestampToken must give them back.
const tsaTime = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_123)

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'signet-seal-pki-'))
  pki = await generateInstancePki({ instanceName: 'Signet (test.example)', now: pkiNow })
  await writeFile(inDir('root.pem'), pki.rootCertificatePem)
  await writeFile(inDir('seal.pem'), pki.sealCertificatePem)
  await writeFile(inDir('tsa.pem'), pki.tsaCertificatePem)
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const localTsa = (clock: Clock = fixedClock(tsaTime)) =>
  createLocalTsa({ certificatePem: pki.tsaCertificatePem, privateKeyPem: pki.tsaPrivateKeyPem, chainPems: [pki.rootCertificatePem], clock })

describe.runIf(haveOpenssl)('generateInstancePki, checked with OpenSSL', () => {
  test('the root issues the seal and TSA certificates', async () => {
    expect(await run('openssl', ['verify', '-CAfile', 'root.pem', 'seal.pem', 'tsa.pem'], dir)).toBe('seal.pem: OK\ntsa.pem: OK\n')
  })

  test('each certificate carries its profile', async () => {
    const text = (file: string) => run('openssl', ['x509', '-in', file, '-noout', '-text'], dir)
    const root = await text('root.pem')
    expect(root).toContain('Subject: O = Signet (test.example), CN = Signet (test.example) Root CA')
    expect(root).toMatch(/Basic Constraints: critical\s+CA:TRUE, pathlen:0/)
    expect(root).toMatch(/Key Usage: critical\s+Certificate Sign, CRL Sign\n/)
    expect(root).toContain('Subject Key Identifier')
    expect(root).toMatch(/Not After : .* 20(5\d) GMT/) // 25 years

    const sealCertificate = await text('seal.pem')
    expect(sealCertificate).toContain('CN = Signet (test.example) Document Seal')
    expect(sealCertificate).toMatch(/Basic Constraints: critical\s+CA:FALSE/)
    expect(sealCertificate).toMatch(/Key Usage: critical\s+Digital Signature, Non Repudiation\n/)
    expect(sealCertificate).toContain('Authority Key Identifier')
    expect(sealCertificate).not.toContain('Extended Key Usage')

    const tsaCertificate = await text('tsa.pem')
    expect(tsaCertificate).toContain('CN = Signet (test.example) Time-Stamp Authority')
    expect(tsaCertificate).toMatch(/Key Usage: critical\s+Digital Signature\n/)
    expect(tsaCertificate).toMatch(/Extended Key Usage: critical\s+Time Stamping\n/)
    for (const certificate of [root, sealCertificate, tsaCertificate]) {
      expect(certificate).toContain('Signature Algorithm: ecdsa-with-SHA256')
      expect(certificate).toContain('NIST CURVE: P-256')
      expect(certificate).toMatch(/Serial Number:\s+[4-7][0-9a-f]:(?:[0-9a-f]{2}:){14}[0-9a-f]{2}\n/)
    }
  })

  test('private keys are PKCS#8 P-256 keys', () => {
    for (const pem of [pki.rootPrivateKeyPem, pki.sealPrivateKeyPem, pki.tsaPrivateKeyPem]) {
      expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/)
      expect(createPrivateKey(pem).asymmetricKeyDetails?.namedCurve).toBe('prime256v1')
    }
  })
})

describe.runIf(haveOpenssl)('the local TSA', () => {
  const verifyWithOpenssl = async (token: Uint8Array, digest: Uint8Array) => {
    await writeFile(inDir('token.der'), token)
    const hex = Buffer.from(digest).toString('hex')
    return run('openssl', ['ts', '-verify', '-digest', hex, '-in', 'token.der', '-token_in', '-CAfile', 'root.pem', '-untrusted', 'tsa.pem'], dir)
  }

  test.each<[DigestAlgorithm, string]>([
    ['SHA-256', 'sha256'],
    ['SHA-512', 'sha512'],
  ])('a %s token verifies with openssl ts -verify and reads back', async (algorithm, nodeName) => {
    const digest = new Uint8Array(createHash(nodeName).update('the signature value').digest())
    const token = await (await localTsa()).timestamp(digest, algorithm)

    expect(await verifyWithOpenssl(token, digest)).toContain('Verification: OK')
    const facts = readTimestampToken(token)
    expect(facts.genTime.toISOString()).toBe(tsaTime.toISOString())
    expect(facts.tsaName).toBe('Signet (test.example) Time-Stamp Authority')
    expect(facts.hashAlgorithm).toBe(algorithm)
    expect(Buffer.from(facts.messageImprint).equals(digest)).toBe(true)
    expect(facts.policy).toBe(LOCAL_TSA_POLICY)
    expect(facts.serialNumber).toMatch(/^[4-7][0-9a-f]{31}$/)
  })

  test('a token for another digest fails verification', async () => {
    const token = await (await localTsa()).timestamp(sha256('signed'), 'SHA-256')
    expect(await verifyWithOpenssl(token, sha256('something else'))).toContain('message imprint mismatch')
  })

  test('the token states policy, accuracy, TSA name and signing-certificate-v2', async () => {
    const token = await (await localTsa()).timestamp(sha256('x'), 'SHA-256')
    await writeFile(inDir('token.der'), token)
    const text = await run('openssl', ['ts', '-reply', '-in', 'token.der', '-token_in', '-text'], dir)
    expect(text).toContain(`Policy OID: ${LOCAL_TSA_POLICY}`)
    expect(text).toContain('Accuracy: 0x01 seconds')
    expect(text).toContain('TSA: DirName:/O=Signet (test.example)/CN=Signet (test.example) Time-Stamp Authority')
    expect(text).toMatch(/Time stamp: .* \d\d:\d\d:\d\d\.123 \d{4} GMT/)
    const cms = await run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', 'token.der'], dir)
    expect(cms).toContain('id-smime-aa-signingCertificateV2')
    expect(cms).toContain('id-smime-ct-TSTInfo')
  })

  test('refuses to stamp outside its certificate validity', async () => {
    const tsa = await localTsa(fixedClock(new Date(pkiNow.getTime() - 86_400_000)))
    await expect(tsa.timestamp(sha256('x'), 'SHA-256')).rejects.toThrow(/not valid at/)
  })

  test('refuses a key that is not its certificate’s', async () => {
    await expect(
      createLocalTsa({ certificatePem: pki.tsaCertificatePem, privateKeyPem: pki.sealPrivateKeyPem, chainPems: [], clock: fixedClock(tsaTime) }),
    ).rejects.toThrow('the time-stamp authority private key does not match its certificate')
  })
})

describe.runIf(haveOpensslAndPdfsig)('sealing a PDF at B-T, checked with pdfsig', () => {
  const pdfsig = async (pdf: Uint8Array) => {
    await writeFile(inDir('sealed.pdf'), pdf)
    return run('pdfsig', ['-no-ocsp', 'sealed.pdf'], dir)
  }

  test('the instance seal with the local TSA is valid and covers the whole document', async () => {
    const credentials = await sealCredentialsFromPki(pki)
    expect(credentials.subjectName).toBe('Signet (test.example) Document Seal')
    expect(credentials.rootCertificatePem).toBe(pki.rootCertificatePem)
    const clock = fixedClock(new Date(Math.floor(Date.now() / 1000) * 1000))
    const sealed = await seal(await makePdf(2), credentials, timestampAuthorityChain([await localTsa(clock)]))

    const report = await pdfsig(sealed)
    expect(report).toContain('Signature Validation: Signature is Valid.')
    expect(report).toContain('Total document signed')
    expect(report).toContain('Signature Type: ETSI.CAdES.detached')
    expect(report).toContain('Signer Certificate Common Name: Signet (test.example) Document Seal')

    const proof = lastSignatureTimestamp(sealed)
    expect(proof?.genTime.toISOString()).toBe(clock.now().toISOString())
    expect(proof?.tsaName).toBe('Signet (test.example) Time-Stamp Authority')
  })

  test.runIf(haveTools('certutil'))('a verifier that pins the published root trusts the seal', async () => {
    await mkdir(inDir('nss'))
    await execute('certutil', ['-N', '-d', 'sql:nss', '--empty-password'], { cwd: dir })
    await execute('certutil', ['-A', '-d', 'sql:nss', '-n', 'signet-root', '-t', 'CT,C,C', '-i', 'root.pem'], { cwd: dir })
    await writeFile(inDir('pinned.pdf'), await seal(await makePdf(), await sealCredentialsFromPki(pki), await localTsa(fixedClock(new Date()))))
    // Without -no-ocsp: poppler 22.12 reports any chain as "Unknown issue" under that flag. Nothing is
    // fetched either way: our certificates name no OCSP responder.
    const report = await run('pdfsig', ['-nssdir', 'sql:nss', 'pinned.pdf'], dir)
    expect(report).toContain('Signature Validation: Signature is Valid.')
    expect(report).toContain('Certificate Validation: Certificate is Trusted.')
  })

  test('the seal CMS carries signing-certificate-v2, the chain up to the root and a token over its signature', async () => {
    const sealed = await seal(await makePdf(), await sealCredentialsFromPki(pki), await localTsa(fixedClock(new Date())))
    const cms = lastSignatureContents(sealed)
    const token = cms && signatureTimestampToken(cms)
    if (!cms || !token) throw new Error('the sealed PDF has no signature time-stamp')
    await writeFile(inDir('seal.cms'), cms)
    // RFC 3161 appendix A: the token stamps the signature value. pdfsig does not check that; OpenSSL does.
    await writeFile(inDir('signature-value.bin'), signedDataOf(cms).signerInfos[0]?.signature.valueBlock.valueHexView ?? new Uint8Array())
    await writeFile(inDir('signature-token.der'), token)
    const verified = await run(
      'openssl',
      ['ts', '-verify', '-data', 'signature-value.bin', '-in', 'signature-token.der', '-token_in', '-CAfile', 'root.pem'],
      dir,
    )
    expect(verified).toContain('Verification: OK')
    const printed = await run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', 'seal.cms'], dir)
    expect(printed).toContain('id-smime-aa-signingCertificateV2')
    expect(printed).toContain('id-smime-aa-timeStampToken')
    expect(printed.match(/subject: O=Signet \(test.example\), CN=Signet \(test.example\) (Root CA|Document Seal)/g)).toHaveLength(2)
  })

  describe('with a seal key from a PKCS#12 file made by OpenSSL', () => {
    let p12: Uint8Array

    beforeAll(async () => {
      const openssl = (...args: string[]) => execute('openssl', args, { cwd: dir })
      await writeFile(
        inDir('p12.cnf'),
        '[req]\ndistinguished_name=dn\nprompt=no\n[dn]\nCN=x\n' +
          '[ca]\nbasicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign\nsubjectKeyIdentifier=hash\n' +
          '[seal]\nbasicConstraints=critical,CA:false\nkeyUsage=critical,digitalSignature,nonRepudiation\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n',
      )
      await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'p12-root.key')
      await openssl(
        'req',
        '-new',
        '-x509',
        '-config',
        'p12.cnf',
        '-extensions',
        'ca',
        '-key',
        'p12-root.key',
        '-subj',
        '/O=Acme/CN=Acme Root',
        '-days',
        '30',
        '-out',
        'p12-root.pem',
      )
      await openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'p12-seal.key')
      await openssl('req', '-new', '-config', 'p12.cnf', '-key', 'p12-seal.key', '-subj', '/O=Acme/CN=Acme Document Seal', '-out', 'p12-seal.csr')
      await openssl(
        'x509',
        '-req',
        '-in',
        'p12-seal.csr',
        '-CA',
        'p12-root.pem',
        '-CAkey',
        'p12-root.key',
        '-CAcreateserial',
        '-days',
        '30',
        '-extfile',
        'p12.cnf',
        '-extensions',
        'seal',
        '-out',
        'p12-seal.pem',
      )
      // An unrelated certificate rides along (the instance TSA's): it must stay out of the signature.
      await writeFile(inDir('p12-extra.pem'), pki.tsaCertificatePem + (await readFile(inDir('p12-root.pem'), 'utf8')))
      await openssl(
        'pkcs12',
        '-export',
        '-inkey',
        'p12-seal.key',
        '-in',
        'p12-seal.pem',
        '-certfile',
        'p12-extra.pem',
        '-passout',
        'pass:correct horse',
        '-out',
        'seal.p12',
      )
      p12 = new Uint8Array(await readFile(inDir('seal.p12')))
      expect(await run('openssl', ['pkcs12', '-in', 'seal.p12', '-info', '-noout', '-passin', 'pass:correct horse'], dir)).toContain(
        'PBES2, PBKDF2, AES-256-CBC',
      )
    })

    test('seals a PDF that pdfsig calls valid', async () => {
      const credentials = await sealCredentialsFromP12(p12, 'correct horse')
      expect(credentials.subjectName).toBe('Acme Document Seal')
      expect(credentials.signer.keyType).toBe('RSA')
      expect(credentials.signer.certificateChain).toHaveLength(1)
      expect(credentials.rootCertificatePem).toContain('-----BEGIN CERTIFICATE-----')

      const report = await pdfsig(await seal(await makePdf(), credentials, await localTsa(fixedClock(new Date()))))
      expect(report).toContain('Signature Validation: Signature is Valid.')
      expect(report).toContain('Total document signed')
      expect(report).toContain('Signer Certificate Common Name: Acme Document Seal')
    })

    test('names the root for publication', async () => {
      const credentials = await sealCredentialsFromP12(p12, 'correct horse')
      await writeFile(inDir('p12-published-root.pem'), credentials.rootCertificatePem ?? '')
      expect(await run('openssl', ['x509', '-in', 'p12-published-root.pem', '-noout', '-subject'], dir)).toBe('subject=O = Acme, CN = Acme Root\n')
    })

    test('a wrong password is reported as such', async () => {
      await expect(sealCredentialsFromP12(p12, 'wrong')).rejects.toThrow(
        'cannot use the seal P12 (SEAL_P12): wrong password (SEAL_P12_PASSWORD), or the file is damaged',
      )
    })

    test('a P12 without a private key is refused', async () => {
      await execute('openssl', ['pkcs12', '-export', '-nokeys', '-in', 'p12-seal.pem', '-passout', 'pass:pw', '-out', 'nokey.p12'], { cwd: dir })
      const noKey = new Uint8Array(await readFile(inDir('nokey.p12')))
      await expect(sealCredentialsFromP12(noKey, 'pw')).rejects.toThrow('cannot use the seal P12 (SEAL_P12): it contains no private key')
    })
  })
})

describe('seal credentials and signature time-stamps, without external tools', () => {
  test('the seal key must match the seal certificate', async () => {
    await expect(sealCredentialsFromPki({ ...pki, sealPrivateKeyPem: pki.tsaPrivateKeyPem })).rejects.toThrow(
      'the seal private key does not match its certificate',
    )
  })

  test('the last of two seals is the one read', async () => {
    const credentials = await sealCredentialsFromPki(pki)
    const first = new Date(Math.floor(Date.now() / 1000) * 1000)
    const second = new Date(first.getTime() + 5_000)
    const once = await seal(await makePdf(), credentials, await localTsa(fixedClock(first)))
    expect(lastSignatureTimestamp(once)?.genTime).toEqual(first)
    const twice = await seal(once, credentials, await localTsa(fixedClock(second)))
    expect(lastSignatureTimestamp(twice)?.genTime).toEqual(second)
  })

  test('an unsigned PDF has no signature time-stamp', async () => {
    expect(lastSignatureTimestamp(await makePdf())).toBeNull()
  })

  test('an untimed (B-B) signature has no signature time-stamp', async () => {
    const document = await PDF.load(await makePdf())
    const { bytes } = await document.sign({ signer: (await sealCredentialsFromPki(pki)).signer, level: 'B-B' })
    const cms = lastSignatureContents(bytes)
    expect(cms).not.toBeNull()
    expect(signatureTimestampToken(cms ?? new Uint8Array())).toBeNull()
    expect(lastSignatureTimestamp(bytes)).toBeNull()
  })
})

describe('the time-stamp authority chain', () => {
  const digest = sha256('signature value')

  test.runIf(haveOpenssl)('skips an unreachable authority and takes the token of the next', async () => {
    const thirdParty = await startOpensslTsa()
    try {
      const second = httpTimestampAuthority(thirdParty.url, { timeoutMs: 5_000 })
      const chain = timestampAuthorityChain([httpTimestampAuthority(await closedPortUrl(), { timeoutMs: 5_000 }), second])
      expect(chain.lastServedBy()).toBeNull()

      const token = await chain.timestamp(digest, 'SHA-256')
      expect(chain.lastServedBy()).toBe(second.name)
      expect(second.name).toBe(new URL(thirdParty.url).host)
      expect(thirdParty.served()).toBe(1)
      expect(readTimestampToken(token)).toMatchObject({ tsaName: 'Test Third-Party TSA', policy: '1.3.6.1.4.1.99999.1', hashAlgorithm: 'SHA-256' })
      await writeFile(inDir('third-party.der'), token)
      const verified = await run(
        'openssl',
        [
          'ts',
          '-verify',
          '-digest',
          Buffer.from(digest).toString('hex'),
          '-in',
          'third-party.der',
          '-token_in',
          '-CAfile',
          thirdParty.rootFile,
          '-untrusted',
          thirdParty.tsaCertFile,
        ],
        dir,
      )
      expect(verified).toContain('Verification: OK')
    } finally {
      await thirdParty.close()
    }
  })

  test('fails with every authority’s reason when none answers', async () => {
    const urls = [await closedPortUrl(), await closedPortUrl()]
    const chain = timestampAuthorityChain(urls.map((url) => httpTimestampAuthority(url)))
    const failure = await chain.timestamp(digest, 'SHA-256').catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(TimestampUnavailableError)
    const { failures, message } = failure as TimestampUnavailableError
    expect(failures.map(({ tsa }) => tsa)).toEqual(urls.map((url) => new URL(url).host))
    for (const { tsa, reason } of failures) expect(reason).toBe(`TSA request failed: fetch failed (connect ECONNREFUSED ${tsa})`)
    expect(message).toBe(`no time-stamp authority produced a token: ${failures.map(({ tsa, reason }) => `${tsa}: ${reason}`).join('; ')}`)
    expect(chain.lastServedBy()).toBeNull()
  })

  test.each(['headers', 'body'] as const)('gives up on an authority that stalls before the %s within its timeout', async (stage) => {
    const { url, server } = await stallingServer(stage)
    try {
      const started = performance.now()
      const chain = timestampAuthorityChain([httpTimestampAuthority(url, { timeoutMs: 300 })])
      const failure = await chain.timestamp(digest, 'SHA-256').catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(TimestampUnavailableError)
      expect((failure as TimestampUnavailableError).failures[0]?.reason).toMatch(/time/i)
      // Its own 300-ms deadline, not fetch's defaults of minutes: seconds of slack for a busy machine.
      expect(performance.now() - started).toBeLessThan(10_000)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  test('passes over a token that stamps another digest', async () => {
    const tsa = await localTsa()
    const confused: NamedTimestampAuthority = { name: 'confused', timestamp: (_digest, algorithm) => tsa.timestamp(sha256('something else'), algorithm) }
    const chain = timestampAuthorityChain([confused, tsa])
    const token = await chain.timestamp(digest, 'SHA-256')
    expect(Buffer.from(readTimestampToken(token).messageImprint).equals(digest)).toBe(true)
    expect(chain.lastServedBy()).toBe('local')
  })

  test('needs at least one authority', () => {
    expect(() => timestampAuthorityChain([])).toThrow('needs at least one authority')
  })
})

import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { OPENSSL_CA_CONFIG } from './openssl-ca.ts'

/*
 * A third-party RFC 3161 time-stamp authority for tests: OpenSSL's `ts -reply` behind
 * a small HTTP server, with its own root and TSA certificate. Nothing in our code
 * produced its tokens, so tests that accept them prove interoperability.
 */

const run = promisify(execFile)

export interface OpensslTsa {
  /** POST application/timestamp-query here; answers application/timestamp-reply. */
  url: string
  /** The TSA's root certificate (PEM), e.g. as a verifier's trust anchor. */
  rootPem: string
  tsaCertPem: string
  /** Files for `openssl ts -verify -CAfile <rootFile> -untrusted <tsaCertFile>`. */
  rootFile: string
  tsaCertFile: string
  /** Number of replies served so far. */
  served(): number
  close(): Promise<void>
}

const CONFIG = `${OPENSSL_CA_CONFIG}
[ tsa_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = .
serial = ./tsaserial
signer_cert = ./tsa.pem
certs = ./tsa.pem
signer_key = ./tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`

/** Creates the authority's keys and certificates in a temporary directory and starts serving. */
export async function startOpensslTsa(name = 'Test Third-Party TSA'): Promise<OpensslTsa> {
  const dir = await mkdtemp(join(tmpdir(), 'signet-openssl-tsa-'))
  const inDir = (file: string) => join(dir, file)
  await writeFile(inDir('openssl.cnf'), CONFIG)
  await writeFile(inDir('tsaserial'), '01\n')
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir })
  await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'root.key')
  await openssl(
    'req',
    '-new',
    '-x509',
    '-config',
    'openssl.cnf',
    '-key',
    'root.key',
    '-subj',
    `/CN=${name} Root/O=Test`,
    '-days',
    '3650',
    '-extensions',
    'root_ext',
    '-out',
    'root.pem',
  )
  await openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'tsa.key')
  await openssl('req', '-new', '-config', 'openssl.cnf', '-key', 'tsa.key', '-subj', `/CN=${name}/O=Test`, '-out', 'tsa.csr')
  await openssl(
    'x509',
    '-req',
    '-in',
    'tsa.csr',
    '-CA',
    'root.pem',
    '-CAkey',
    'root.key',
    '-CAcreateserial',
    '-days',
    '3650',
    '-extfile',
    'openssl.cnf',
    '-extensions',
    'tsa_ext',
    '-out',
    'tsa.pem',
  )

  /** Runs one openssl reply at a time, in arrival order. */
  let last: Promise<unknown> = Promise.resolve()
  const oneAtATime = <T>(task: () => Promise<T>): Promise<T> => {
    const run = last.then(task)
    last = run.catch(() => undefined)
    return run
  }
  let served = 0
  let sequence = 0
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const id = ++sequence
      const query = inDir(`query-${id}.tsq`)
      const reply = inDir(`reply-${id}.tsr`)
      // openssl ts reads and rewrites the serial file: two replies at once can both fail ("Error during serial number generation").
      writeFile(query, Buffer.concat(chunks))
        .then(() => oneAtATime(() => openssl('ts', '-reply', '-config', 'openssl.cnf', '-queryfile', query, '-out', reply)))
        .then(() => readFile(reply))
        .then((bytes) => {
          served++
          response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(bytes)
        })
        .catch((error: unknown) => {
          response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error))
        })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/tsr`,
    rootPem: await readFile(inDir('root.pem'), 'utf8'),
    tsaCertPem: await readFile(inDir('tsa.pem'), 'utf8'),
    rootFile: inDir('root.pem'),
    tsaCertFile: inDir('tsa.pem'),
    served: () => served,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await rm(dir, { recursive: true, force: true })
    },
  }
}

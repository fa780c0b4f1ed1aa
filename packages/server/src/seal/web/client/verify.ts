/// <reference lib="dom" />
/*
 * The verification page's script (bundled with @signet/verify by esbuild, see
 * verify-bundle.ts): checks a dropped PDF entirely in the browser, against this
 * service's published root, and compares its hash with the sealed file's.
 * (The reference above gives the server's tsconfig, which includes this file, the DOM
 * types; this folder's own tsconfig.json checks it without Node's.)
 */
import { verifyPdf, type Verdict, type VerifyResult } from '@signet/verify'

interface Boot {
  sealedFileSha256: string
  originalSha256: string | null
  rootPemUrl: string
}

const VERDICTS: Record<Verdict, { tone: 'ok' | 'warn' | 'bad'; heading: string; detail: string }> = {
  verified: { tone: 'ok', heading: 'Valid seal', detail: 'The signature is intact, made by a trusted key, and its time is proven by a time-stamp.' },
  'verified-untrusted-root': {
    tone: 'warn',
    heading: 'Valid, but not signed by this service',
    detail: 'The signature and its time-stamp are intact, but the signing key does not chain to this service’s root certificate.',
  },
  'signed-untimed': { tone: 'warn', heading: 'Signed, without a proven time', detail: 'The signature is intact but carries no RFC 3161 time-stamp.' },
  unverified: { tone: 'bad', heading: 'Invalid signature', detail: 'A signature, its certificate chain or its time-stamp does not check out.' },
  mismatch: { tone: 'bad', heading: 'Altered', detail: 'The file was changed after it was signed.' },
  unsupported: {
    tone: 'bad',
    heading: 'Cannot check this file',
    detail: 'It is not a readable PDF, or its signatures use a format this checker does not support.',
  },
  'no-signature': { tone: 'bad', heading: 'No signature', detail: 'This PDF carries no digital signature at all.' },
}

const boot = JSON.parse(document.getElementById('signet-boot')?.textContent ?? '{}') as Boot
const result = document.getElementById('result') as HTMLElement
const drop = document.getElementById('drop') as HTMLElement
const input = document.getElementById('file') as HTMLInputElement
const rootPem = fetch(boot.rootPemUrl).then((response) => (response.ok ? response.text() : ''))

function show(tone: 'ok' | 'warn' | 'bad', heading: string, lines: string[], list: string[] = []): void {
  result.className = `result tone-${tone}`
  result.replaceChildren()
  const h = document.createElement('h3')
  h.textContent = heading
  result.append(h)
  for (const line of lines) {
    const p = document.createElement('p')
    p.textContent = line
    result.append(p)
  }
  if (list.length > 0) {
    const ul = document.createElement('ul')
    for (const item of list) {
      const li = document.createElement('li')
      li.textContent = item
      ul.append(li)
    }
    result.append(ul)
  }
}

function sameFileLine(outcome: VerifyResult): string {
  if (outcome.fileSha256 === boot.sealedFileSha256) return 'This is exactly the file sealed here (same SHA-256).'
  if (outcome.fileSha256 === boot.originalSha256) return 'This is the original upload, before it was sealed: download the sealed file to get the proof.'
  return `This is not the file sealed here: its SHA-256 is ${outcome.fileSha256}.`
}

function signatureLines(outcome: VerifyResult): string[] {
  return outcome.signatures.map((signature) => {
    const who = signature.signer?.commonName ?? signature.signer?.subject ?? 'unknown signer'
    // The verifier names the TSA by its distinguished name; its common name reads better here.
    const tsa = signature.timestamp?.tsaName ? (/CN=([^,]+)/.exec(signature.timestamp.tsaName)?.[1] ?? signature.timestamp.tsaName) : 'a TSA'
    const when = signature.timestamp ? `time-stamped ${signature.timestamp.time} by ${tsa}` : 'no time-stamp'
    return `${signature.kind === 'document-timestamp' ? 'Document time-stamp' : who}: ${when}${signature.problems.length ? ` — ${signature.problems.join('; ')}` : ''}`
  })
}

async function check(file: File): Promise<void> {
  if (!globalThis.crypto?.subtle) {
    show('bad', 'This browser cannot check files here', ['Checking needs Web Crypto, which browsers only offer on HTTPS pages.'])
    return
  }
  show('warn', `Checking ${file.name}…`, [])
  const outcome = await verifyPdf(new Uint8Array(await file.arrayBuffer()), { trustAnchors: [await rootPem].filter(Boolean) })
  const verdict = VERDICTS[outcome.verdict]
  const matches = outcome.fileSha256 === boot.sealedFileSha256
  const tone = verdict.tone === 'ok' && !matches ? 'warn' : verdict.tone
  show(tone, verdict.heading, [verdict.detail, sameFileLine(outcome), ...outcome.problems.slice(0, 3)], signatureLines(outcome))
}

function run(file: File | undefined): void {
  if (!file) return
  check(file).catch((error: unknown) => show('bad', 'The check failed', [error instanceof Error ? error.message : String(error)]))
}

input.addEventListener('change', () => run(input.files?.[0]))
drop.addEventListener('dragover', (event) => {
  event.preventDefault()
  drop.classList.add('is-over')
})
drop.addEventListener('dragleave', () => drop.classList.remove('is-over'))
drop.addEventListener('drop', (event) => {
  event.preventDefault()
  drop.classList.remove('is-over')
  run(event.dataTransfer?.files[0])
})

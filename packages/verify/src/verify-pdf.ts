import { PdfDocument } from './pdf/document.ts'
import { PdfStream } from './pdf/objects.ts'
import { ChangeAnalyzer, type ChangeReport } from './signatures/changes.ts'
import { examineSignature, type ExaminedSignature, type SignatureContext } from './signatures/examine.ts'
import { findSignatureFields, type SignatureField } from './signatures/fields.ts'
import { timestampValid, type TimestampCheck } from './timestamps/timestamp-token.ts'
import { loadTrustAnchors } from './trust/anchors.ts'
import { validateChain, type ChainResult } from './trust/chain.ts'
import type { ChainSummary, SignatureReport, SignerSummary, TimestampSummary, Verdict, VerifyOptions, VerifyResult } from './types.ts'
import { documentVerdict, signatureVerdict } from './verdict.ts'
import { parseCertificate, type Certificate } from './x509/certificate.ts'
import { toHex } from './util/bytes.ts'
import { createFileHasher, digest, type FileHasher } from './util/digest.ts'

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function signerSummary(certificate: Certificate | null): SignerSummary | null {
  if (!certificate) return null
  return {
    subject: certificate.subject,
    commonName: certificate.commonName,
    organization: certificate.organization,
    serialNumber: certificate.serialNumber,
    spkiSha256: certificate.spkiPin,
    issuer: certificate.issuer,
    notBefore: certificate.notBefore.toISOString(),
    notAfter: certificate.notAfter.toISOString(),
  }
}

function chainSummary(chain: ChainResult | null, at: Date): ChainSummary {
  return {
    subjects: chain?.certificates.map((certificate) => certificate.subject) ?? [],
    valid: chain?.valid ?? false,
    trusted: chain?.trusted ?? false,
    problems: chain?.problems ?? [],
    validatedAt: at.toISOString(),
  }
}

/** Certificates a later update stored in the Document Security Store, offered to chain building. */
async function dssCertificates(doc: PdfDocument): Promise<Certificate[]> {
  const out: Certificate[] = []
  try {
    const root = await doc.resolveDict(doc.trailer().get('Root'))
    const dss = await doc.resolveDict(root?.get('DSS'))
    for (const item of (await doc.resolveArray(dss?.get('Certs'))) ?? []) {
      const stream = await doc.resolve(item)
      if (!(stream instanceof PdfStream)) continue
      try {
        out.push(await parseCertificate(await doc.decodedStream(stream)))
      } catch {
        // An unreadable DSS certificate only means one fewer chain candidate.
      }
    }
  } catch {
    // Same: the DSS is optional help for chain building.
  }
  return out
}

interface ProvenTime {
  check: TimestampCheck
  source: 'signature-time-stamp' | 'document-timestamp'
  from: ExaminedSignature
}

function timestampSummary(proof: ProvenTime, coversSignature: boolean): TimestampSummary | null {
  const { check } = proof
  if (!check.time) return null
  return {
    time: check.time.toISOString(),
    tsaName: check.tsaName,
    valid: timestampValid(check),
    coversSignature,
    trusted: check.chain.trusted,
    source: proof.source,
    ...(proof.source === 'document-timestamp' ? { documentTimestampField: proof.from.field.fieldName } : {}),
    tsaChain: check.chain.certificates.map((certificate) => certificate.subject),
  }
}

function gapStart(field: SignatureField): number {
  const range = field.dict.get('ByteRange')
  const length = Array.isArray(range) ? range[1] : undefined
  return typeof length === 'number' ? length : Number.MAX_SAFE_INTEGER
}

function unsupportedResult(fileSha256: string, problem: string): VerifyResult {
  return { verdict: 'unsupported', fileSha256, signatures: [], problems: [problem] }
}

/** See index.ts for the rules. Never throws for bad input: unreadable files are "unsupported". */
export async function verifyPdf(bytes: Uint8Array, options: VerifyOptions = {}): Promise<VerifyResult> {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('verifyPdf expects the file as a Uint8Array')
  const hasher = createFileHasher(bytes)
  try {
    return await verify(bytes, options, hasher)
  } catch (error) {
    // A bug of ours must not look like a verdict about the file: report it as "unsupported".
    const fileSha256 = toHex(await hasher.fileSha256().catch(() => digest('SHA-256', bytes)))
    return unsupportedResult(fileSha256, `internal error while verifying: ${message(error)}`)
  }
}

async function verify(bytes: Uint8Array, options: VerifyOptions, hasher: FileHasher): Promise<VerifyResult> {
  // Asked for last: the Node hasher then finishes the pass it made for the signatures.
  const fileHash = async (): Promise<string> => toHex(await hasher.fileSha256())
  const now = options.now ?? new Date()
  let doc: PdfDocument
  try {
    doc = await PdfDocument.open(bytes)
  } catch (error) {
    return unsupportedResult(await fileHash(), `not a readable PDF: ${message(error)}`)
  }
  if (doc.trailer().has('Encrypt')) return unsupportedResult(await fileHash(), 'encrypted PDFs are not supported')

  const analyzer = new ChangeAnalyzer(doc)
  const trailing = analyzer.trailingProblems()
  const search = await findSignatureFields(doc)
  if (search.fields.length === 0) {
    // A damaged tail may be what is left of a signature (a truncated or mangled update): do not call that unsigned.
    if (trailing.length > 0)
      return {
        verdict: 'unsupported',
        fileSha256: await fileHash(),
        signatures: [],
        problems: ['the file is damaged: it has no readable signature, and its end is not a valid revision', ...trailing],
      }
    const reason = search.hasAcroForm
      ? 'the document has no signed signature fields'
      : 'the document has no interactive form (/AcroForm), so no signature fields'
    return { verdict: 'no-signature', fileSha256: await fileHash(), signatures: [], problems: [reason, ...search.problems] }
  }

  const anchors = await loadTrustAnchors(options.trustAnchors)
  const context: SignatureContext = { doc, anchors, extraCertificates: await dssCertificates(doc), hasher, digests: new Map() }
  // In file order of each signature's gap, so the hasher reads the file once (see util/digest.ts).
  const fields = [...search.fields].sort((a, b) => gapStart(a) - gapStart(b))
  const examined: ExaminedSignature[] = []
  for (const field of fields) examined.push(await examineSignature(field, context))
  // Chronological order: by the revision (then offset) each signature ends with.
  examined.sort((a, b) => (a.byteRange.end === b.byteRange.end ? a.field.container.offset - b.field.container.offset : a.byteRange.end - b.byteRange.end))

  const changes = new Map<number, ChangeReport>()
  const reports: SignatureReport[] = []
  for (const signature of examined) {
    const revision = signature.byteRange.revision
    let change: ChangeReport = { disallowed: [], notes: [] }
    if (revision !== null) {
      let cached = changes.get(revision)
      if (!cached) {
        cached = await analyzer.after(revision)
        changes.set(revision, cached)
      }
      change = cached
    }
    reports.push(await finish(signature, examined, change, trailing, anchors, context, now))
  }

  const verdict: Verdict = documentVerdict(reports.map((report) => report.verdict))
  return { verdict, fileSha256: await fileHash(), signatures: reports, problems: documentProblems(verdict, reports, [...anchors.problems, ...search.problems]) }
}

/** The time proven for a signature: its own valid timestamp, or a valid document timestamp whose signed bytes contain it. */
function provenTimes(signature: ExaminedSignature, all: readonly ExaminedSignature[]): ProvenTime[] {
  const proofs: ProvenTime[] = []
  if (signature.kind === 'document-timestamp') {
    if (signature.timestamp && timestampValid(signature.timestamp) && signature.byteRange.problems.length === 0)
      proofs.push({ check: signature.timestamp, source: 'document-timestamp', from: signature })
    return proofs
  }
  if (signature.timestamp && timestampValid(signature.timestamp)) proofs.push({ check: signature.timestamp, source: 'signature-time-stamp', from: signature })
  for (const other of all) {
    if (other.kind !== 'document-timestamp' || !other.timestamp || !timestampValid(other.timestamp) || other.byteRange.problems.length > 0) continue
    const covers = other.byteRange.revision !== null && signature.byteRange.revision !== null && other.byteRange.revision > signature.byteRange.revision
    if (covers) proofs.push({ check: other.timestamp, source: 'document-timestamp', from: other })
  }
  // Prefer a trusted proof, then the earliest.
  return proofs.sort((a, b) => Number(b.check.chain.trusted) - Number(a.check.chain.trusted) || (a.check.time?.getTime() ?? 0) - (b.check.time?.getTime() ?? 0))
}

async function finish(
  signature: ExaminedSignature,
  all: readonly ExaminedSignature[],
  change: ChangeReport,
  trailing: string[],
  anchors: SignatureContext['anchors'],
  context: SignatureContext,
  now: Date,
): Promise<SignatureReport> {
  const proofs = provenTimes(signature, all)
  const proof = proofs[0] ?? null
  const validationTime = proof?.check.time ?? now
  let chain: ChainResult | null = null
  if (signature.kind === 'document-timestamp') chain = signature.timestamp?.chain ?? null
  else if (signature.signer && !signature.unsupported)
    chain = await validateChain(signature.signer, [...signature.certificates, ...context.extraCertificates], anchors, validationTime, 'signature')

  const ownTimestamp = signature.kind === 'signature' ? signature.timestamp : null
  const ownTimestampInvalid = ownTimestamp !== null && !timestampValid(ownTimestamp)
  const disallowedChanges = [...trailing, ...change.disallowed]
  const verdict = signatureVerdict({
    structureProblems: signature.byteRange.problems.length,
    disallowedChanges: disallowedChanges.length,
    unsupported: signature.unsupported !== null,
    digestMatches: signature.digestMatches,
    signatureValid: signature.signatureValid,
    chainValid: chain?.valid ?? false,
    timestampInvalid: ownTimestampInvalid,
    provenTime: proof !== null,
    chainTrusted: chain?.trusted ?? false,
    timeTrusted: proof?.check.chain.trusted ?? false,
  })

  const problems: string[] = [...signature.byteRange.problems, ...disallowedChanges.map((change) => `changed after signing: ${change}`)]
  if (signature.unsupported) problems.push(signature.unsupported)
  problems.push(...signature.problems)
  if (chain && signature.kind === 'signature') problems.push(...chain.problems.map((problem) => `chain: ${problem}`))
  if (signature.kind === 'document-timestamp' && chain) problems.push(...chain.problems.map((problem) => `TSA chain: ${problem}`))
  if (ownTimestamp && ownTimestampInvalid && !ownTimestamp.unsupported && ownTimestamp.problems.length === 0)
    problems.push('the signature-time-stamp is not valid')
  if (!signature.unsupported && !proof && signature.kind === 'signature' && !ownTimestampInvalid)
    problems.push('no RFC 3161 timestamp proves when this signature was made (the signing time is only claimed by the signer)')
  if (proof && !proof.check.chain.trusted) problems.push(`the time-stamp authority "${proof.check.tsaName ?? '?'}" does not chain to a trust anchor`)
  if (!signature.signer && !signature.unsupported) problems.push("the signer's certificate was not found")

  const notes = [...signature.notes, ...change.notes]
  if (proof && signature.claimedSigningTime && signature.claimedSigningTime.getTime() > (proof.check.time?.getTime() ?? 0) + 5 * 60_000) {
    notes.push(`the claimed signing time ${signature.claimedSigningTime.toISOString()} is after the proven time ${proof.check.time?.toISOString() ?? '?'}`)
  }

  let timestamp: TimestampSummary | null = null
  if (ownTimestamp?.time) timestamp = timestampSummary({ check: ownTimestamp, source: 'signature-time-stamp', from: signature }, ownTimestamp.coversData)
  else if (proof) timestamp = timestampSummary(proof, true)

  return {
    fieldName: signature.field.fieldName,
    kind: signature.kind,
    subFilter: signature.subFilter,
    byteRange: signature.byteRange.byteRange,
    coversWholeFile: signature.byteRange.end === context.doc.bytes.length,
    revision: signature.byteRange.revision,
    digestAlgorithm: signature.digestAlgorithm,
    digestMatches: signature.digestMatches,
    signatureValid: signature.signatureValid,
    signer: signerSummary(signature.signer),
    chain: chainSummary(chain, validationTime),
    claimedSigningTime: signature.claimedSigningTime?.toISOString() ?? null,
    timestamp,
    disallowedChanges,
    verdict,
    problems: [...new Set(problems)],
    notes: [...new Set(notes)],
  }
}

const SUMMARY: Record<Verdict, string> = {
  verified: 'every signature is intact, valid, timestamped and chains to a trust anchor',
  'verified-untrusted-root': 'every signature is intact, valid and timestamped, but a signer or time-stamp authority does not chain to a trust anchor',
  'signed-untimed': 'every signature is intact and valid, but no RFC 3161 timestamp proves when it was made',
  unverified: 'a signature, certificate chain or timestamp does not verify',
  mismatch: 'the signed content was modified, or the signatures do not cover the document as they must',
  unsupported: 'the signatures could not be checked',
  'no-signature': 'the document is not signed',
}

function documentProblems(verdict: Verdict, reports: readonly SignatureReport[], extra: readonly string[]): string[] {
  const out: string[] = []
  if (verdict !== 'verified') out.push(SUMMARY[verdict])
  // The problems of the signatures that decided the verdict first.
  const ordered = [...reports].sort((a, b) => Number(b.verdict === verdict) - Number(a.verdict === verdict))
  for (const report of ordered) {
    if (report.verdict === 'verified') continue
    const label = report.fieldName ? `"${report.fieldName}"` : report.kind
    for (const problem of report.problems) out.push(`${label}: ${problem}`)
  }
  out.push(...extra)
  return [...new Set(out)]
}

/**
 * @signet/verify — verify signed and timestamped PDFs, in Node or the browser.
 *
 * `verifyPdf(bytes, { trustAnchors })` reads the PDF's real structure (cross-reference
 * tables and streams from the end of the file, only the objects it needs), finds the
 * signatures through the AcroForm field tree, and checks each one:
 *  - structure: /ByteRange is exactly two ranges, starts at 0, its gap is exactly this
 *    signature's /Contents string at the object's real offset, and it ends at the end of
 *    a revision (an %%EOF of the cross-reference chain);
 *  - later incremental updates: only a DSS, document timestamps (with invisible
 *    widgets) and /Info metadata may follow a signature, judged by each object's role in
 *    the signed revision (not by the key that reaches it later); anything else is a change;
 *  - digest of the signed bytes vs the CMS messageDigest; the CMS signature over the
 *    signed attributes (RSA PKCS#1 v1.5, RSA-PSS, ECDSA; SHA-256/384/512); the ESS
 *    signing-certificate binding;
 *  - the signer's chain, each link verified by signature, validity at the proven time;
 *  - RFC 3161 time: a CAdES signature-time-stamp must hash this signature's value, a
 *    document timestamp (ETSI.RFC3161) must hash its ByteRange; the token's signature and
 *    TSA chain are verified. A valid document timestamp proves the time of every
 *    signature in the revisions it covers.
 *
 * Per-signature verdicts (first rule that applies):
 *  1. malformed ByteRange, or disallowed changes after it          → mismatch
 *  2. unknown SubFilter, unparseable CMS, unsupported algorithm     → unsupported
 *  3. digest mismatch                                               → mismatch
 *  4. CMS signature, chain (links, validity, CA roles) or its own timestamp invalid → unverified
 *  5. no valid RFC 3161 time (own signature-time-stamp or a covering document timestamp) → signed-untimed
 *  6. signer chain or the proving TSA's chain not anchored          → verified-untrusted-root
 *  7. otherwise                                                     → verified
 * Document verdict: no signed signature field → no-signature; every signature unsupported →
 * unsupported; otherwise the worst signature verdict in the order mismatch > unverified >
 * signed-untimed > verified-untrusted-root > verified, where an unsupported signature next
 * to checkable ones counts as unverified. So "verified" needs every signature (and
 * document timestamp) intact, valid, timed, and both the signer's and the TSA's chains
 * anchored. Without trust anchors nothing is trusted: at best "verified-untrusted-root".
 *
 * Trust anchors are pinned by the SHA-256 of their SubjectPublicKeyInfo, never by name.
 * Certificate validity is checked at the proven time (the timestamp's genTime) when there
 * is one, else at `options.now`. Revocation (CRL/OCSP) is not checked.
 *
 * Nothing here imports Node modules; the CLI (cli.ts) is the only Node-specific file.
 */

export type { Verdict, VerifyOptions, VerifyResult, SignatureReport, SignerSummary, ChainSummary, TimestampSummary } from './types.ts'
export { VERDICTS } from './types.ts'
export { verifyPdf } from './verify-pdf.ts'
export { publicKeyPin } from './trust/anchors.ts'
export { EXIT_CODES } from './verdict.ts'

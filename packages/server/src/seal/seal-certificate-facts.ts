/** What a seal certificate states (seal-certificate-sheet.ts draws it; produce-self-seal.ts gathers it). */
export interface SealCertificateFacts {
  documentId: string
  title: string
  /** The uploaded file's name, if given. */
  filename: string | null
  /** The org's identity-verified legal name. */
  orgLegalName: string
  identityVerifiedAt: Date
  /** SHA-256 (hex) of the PDF as uploaded. */
  originalSha256: string
  originalPageCount: number
  /** When sealing was requested: the proven time is in the seal's time-stamp, applied after this certificate is drawn. */
  requestedAt: Date
  /** The public verification page (printed, and as a QR code). */
  verifyUrl: string
  certificateMode: 'appended' | 'separate' | 'both'
  /** The seal certificate's CN, e.g. "Signet Document Seal". */
  sealSubject: string
}

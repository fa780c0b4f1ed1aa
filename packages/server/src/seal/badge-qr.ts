import QRCode from 'qrcode'

/** A horizontal stretch of dark modules in one row of a QR code. */
export interface DarkRun {
  row: number
  col: number
  length: number
}

export interface QrCode {
  /** Modules per side. */
  size: number
  /** Every dark module, merged into runs along each row (fewer shapes to draw than one square per module). */
  runs: DarkRun[]
}

/** Light modules a reader needs around the code to find it (ISO/IEC 18004). */
export const QUIET_ZONE = 4

/**
 * The QR code for `text`, at error-correction level M: up to 15 % of it can be smudged, folded or
 * scratched and still read, at a size that keeps a verification URL's modules large.
 */
export function qrCode(text: string): QrCode {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' })
  const runs: DarkRun[] = []
  for (let row = 0; row < modules.size; row++) {
    let start = -1
    for (let col = 0; col <= modules.size; col++) {
      const dark = col < modules.size && modules.get(row, col) === 1
      if (dark && start < 0) start = col
      if (!dark && start >= 0) {
        runs.push({ row, col: start, length: col - start })
        start = -1
      }
    }
  }
  return { size: modules.size, runs }
}

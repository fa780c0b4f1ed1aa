/** The part of pdf.js's standalone image decoders (shipped without types) that pdf-work/image-check.ts uses. */
declare module 'pdfjs-dist/legacy/image_decoders/pdf.image_decoders.mjs' {
  export const VerbosityLevel: { readonly ERRORS: number; readonly WARNINGS: number; readonly INFOS: number }
  export function setVerbosityLevel(level: number): void
  /** A baseline, extended or progressive Huffman-coded JPEG. */
  export class JpegImage {
    width: number
    height: number
    /** Reads the markers and entropy-decodes every scan; throws a JpegError on what it cannot decode. */
    parse(data: Uint8Array): void
  }
}

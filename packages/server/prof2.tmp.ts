import { PDF } from '@libpdf/core'
import { deflateSync, crc32 } from 'node:zlib'
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4); length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]); const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}
function signaturePng(seed: number): Uint8Array {
  const width = 600, height = 200
  const raw = Buffer.alloc((width * 4 + 1) * height)
  for (let x = 0; x < width; x++) { const c = height / 2 + 60 * Math.sin(x / (25 + seed * 5)); for (let y = Math.max(0, Math.round(c - 3)); y <= Math.min(height - 1, Math.round(c + 3)); y++) raw.set([20, 30, 90, 255], y * (width * 4 + 1) + 1 + x * 4) }
  const header = Buffer.alloc(13); header.writeUInt32BE(width, 0); header.writeUInt32BE(height, 4); header.set([8, 6, 0, 0, 0], 8)
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))])
}
const png = signaturePng(1)
for (let r = 0; r < 20; r++) {
  const pdf = PDF.create(); pdf.addPage()
  const t0 = performance.now(); pdf.embedPng(png); const t1 = performance.now()
  const out = await pdf.save(); const t2 = performance.now()
  if (r > 15) console.log('embedPng', (t1 - t0).toFixed(1), 'save', (t2 - t1).toFixed(1), out.length)
}

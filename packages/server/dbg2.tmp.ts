import { PDF, PdfArray, PdfNumber } from '@libpdf/core'
import { readFileSync, writeFileSync } from 'node:fs'
import { renderSignedPdf } from './src/signing/signed-pdf.ts'
const template = readFileSync('/tmp/sp/rot.pdf')
const png = readFileSync('/tmp/sp/sig.png')
const out = await renderSignedPdf({ originalPdf: template, fields: [{ role: 1, page: 1, required: true, type: 'signature', x: 20, y: 20, width: 180, height: 60 }, { role: 1, page: 1, required: true, type: 'text', x: 300, y: 20, width: 200, height: 20 }], values: [{ type: 'signature', png }, { type: 'text', text: 'Upright text' }], certificate: { documentId: 'x', title: 't', orgName: 'o', originalSha256: 'a', completedAt: new Date(), signers: [], auditTrail: [], auditHeadHash: 'b' } })
writeFileSync('/tmp/sp/rot-out.pdf', out)

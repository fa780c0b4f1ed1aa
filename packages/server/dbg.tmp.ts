import { PDF, PdfArray, PdfNumber } from '@libpdf/core'
import { writeFileSync } from 'node:fs'
const template = PDF.create()
const page = template.addPage({ size: 'letter' })
page.dict.set('MediaBox', new PdfArray([100, 50, 712, 842].map((n) => PdfNumber.of(n))))
page.setRotation(90)
page.drawText('hello', {x: 200, y: 200})
const out = await template.save()
writeFileSync('/tmp/sp/rot.pdf', out)

import { measureSignedPdfRender } from '../../bench/signed-pdf.ts'
for (let i = 0; i < 3; i++) console.log(JSON.stringify(await measureSignedPdfRender(50)))

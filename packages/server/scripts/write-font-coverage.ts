// Writes src/signing/text/font-coverage.json from the installed font packages (npm run font-coverage -w @signet/server).
import { writeFile } from 'node:fs/promises'
import { buildFontCoverage, FONT_COVERAGE_FILE } from './font-coverage.ts'

const coverage = await buildFontCoverage()
await writeFile(FONT_COVERAGE_FILE, coverage)
console.log(`Wrote ${FONT_COVERAGE_FILE} (${Object.keys(JSON.parse(coverage) as object).length} faces).`)

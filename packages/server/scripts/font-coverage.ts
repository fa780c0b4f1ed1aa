import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { loadTextEngines, type TextEngines } from '../src/signing/text/engines.ts'
import { allFaces, COVERAGE_FILE, type Face, type Weight } from '../src/signing/text/font-catalog.ts'

export const FONT_COVERAGE_FILE = fileURLToPath(COVERAGE_FILE)
export const FONT_COVERAGE_COMMAND = 'npm run font-coverage -w @signet/server'

function characters(engines: TextEngines, face: Face, weight: Weight): Set<number> {
  const { hb } = engines
  const file = face.file(weight)
  const raw = readFileSync(file.path)
  const bytes = file.format === 'woff2' ? engines.decodeWoff2(raw) : raw
  return new Set(new hb.Face(new hb.Blob(bytes)).collectUnicodes())
}

/** "20-7e,a0,…": sorted code points as hex, consecutive ones as ranges. */
function ranges(codes: number[]): string {
  const out: [number, number][] = []
  for (const code of codes.sort((a, b) => a - b)) {
    const last = out[out.length - 1]
    if (last && last[1] === code - 1) last[1] = code
    else out.push([code, code])
  }
  return out.map(([from, to]) => (from === to ? from.toString(16) : `${from.toString(16)}-${to.toString(16)}`)).join(',')
}

const CONTROL = /\p{Cc}/u

/**
 * font-coverage.json: for every face the signed-PDF renderer may use, the characters it has (in
 * both weights), read from the installed font packages. One face per line, so a font update shows
 * as a readable diff.
 */
export async function buildFontCoverage(): Promise<string> {
  const engines = await loadTextEngines()
  const lines = allFaces().map((face) => {
    const bold = characters(engines, face, 'bold')
    const codes = [...characters(engines, face, 'regular')].filter((code) => bold.has(code) && !CONTROL.test(String.fromCodePoint(code)))
    return `  ${JSON.stringify(face.id)}: ${JSON.stringify(ranges(codes))}`
  })
  return `{\n${lines.join(',\n')}\n}\n`
}

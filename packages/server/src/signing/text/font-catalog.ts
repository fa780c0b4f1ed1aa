import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/*
 * The fonts signed PDFs are printed with, and which of them draws each character. Everything here
 * is data (no font is opened), so the signing checks on the main thread can ask whether a text
 * prints without loading a font.
 *
 * Latin, Greek and Cyrillic: Liberation Sans, which ships with pdfjs-dist (its WinAnsi-and-a-bit
 * cut). Everything else: Noto Sans variable fonts from @fontsource-variable packages (SIL Open Font
 * License 1.1, which allows embedding; one file serves every weight): Noto Sans for the Latin,
 * Greek and Cyrillic that Liberation Sans lacks (Vietnamese, combining marks…) and for Devanagari,
 * then Arabic, Hebrew, Japanese and Simplified Chinese. Fontsource cuts each font into subsets (the
 * CJK ones into about a hundred numbered slices); each subset file is a face of its own, opened
 * only when a text needs one of its characters.
 */

export type Weight = 'regular' | 'bold'

export type FamilyId = 'liberation' | 'noto' | 'arabic' | 'hebrew' | 'japanese' | 'chinese'

export interface FontFile {
  path: string
  format: 'ttf' | 'woff2'
  /** A variable font (a `wght` axis): the weight is chosen when shaping and fixed when embedding. */
  variable: boolean
}

export interface Face {
  /** Its key in font-coverage.json, e.g. "liberation", "arabic/arabic", "japanese/57". */
  readonly id: string
  readonly family: FamilyId
  file(weight: Weight): FontFile
  /** The PostScript name of the face at `weight`, e.g. "NotoSansArabic-Bold" (a PDF names its fonts by it). */
  postScriptName(weight: Weight): string
}

type NotoFamily = Exclude<FamilyId, 'liberation'>

const require = createRequire(import.meta.url)

/** The Fontsource packages, their fonts' PostScript names, and which of their subsets are used (in this order: the first face that has a character draws it). */
const FONTSOURCE: Record<NotoFamily, { package: string; postScript: string; subsets: 'numbered' | string[] }> = {
  noto: {
    package: '@fontsource-variable/noto-sans',
    postScript: 'NotoSans',
    subsets: ['devanagari', 'latin', 'latin-ext', 'vietnamese', 'greek', 'greek-ext', 'cyrillic', 'cyrillic-ext'],
  },
  arabic: { package: '@fontsource-variable/noto-sans-arabic', postScript: 'NotoSansArabic', subsets: ['arabic'] },
  hebrew: { package: '@fontsource-variable/noto-sans-hebrew', postScript: 'NotoSansHebrew', subsets: ['hebrew'] },
  japanese: { package: '@fontsource-variable/noto-sans-jp', postScript: 'NotoSansJP', subsets: 'numbered' },
  chinese: { package: '@fontsource-variable/noto-sans-sc', postScript: 'NotoSansSC', subsets: 'numbered' },
}

const STYLE: Record<Weight, string> = { regular: 'Regular', bold: 'Bold' }

/** The order families are tried in when the one a character's script prefers lacks it. */
export const ALL_FAMILIES: readonly FamilyId[] = ['liberation', 'noto', 'arabic', 'hebrew', 'chinese', 'japanese']

/** Where Liberation Sans is on disk (pdfjs-dist's standard fonts). */
export function liberationSansPaths(): { regular: string; bold: string } {
  const path = (file: string) => require.resolve(`pdfjs-dist/standard_fonts/${file}`)
  return { regular: path('LiberationSans-Regular.ttf'), bold: path('LiberationSans-Bold.ttf') }
}

const packageDir = (name: string): string => dirname(require.resolve(`${name}/LICENSE`))

const LIBERATION: Face = {
  id: 'liberation',
  family: 'liberation',
  file: (weight) => ({ path: liberationSansPaths()[weight], format: 'ttf', variable: false }),
  postScriptName: (weight) => (weight === 'bold' ? 'LiberationSans-Bold' : 'LiberationSans'),
}

function fontsourceFace(family: NotoFamily, subset: string): Face {
  const { package: name, postScript } = FONTSOURCE[family]
  const file = `${name.split('/')[1]}-${subset}-wght-normal.woff2`
  return {
    id: `${family}/${subset}`,
    family,
    file: () => ({ path: join(packageDir(name), 'files', file), format: 'woff2', variable: true }),
    postScriptName: (weight) => `${postScript}-${STYLE[weight]}`,
  }
}

/** Every face the renderer may use, in the order font-coverage.json lists them (scripts/font-coverage.ts writes it from this). */
export function allFaces(): Face[] {
  const faces = [LIBERATION]
  for (const family of Object.keys(FONTSOURCE) as NotoFamily[]) {
    const { package: name, subsets } = FONTSOURCE[family]
    const names =
      subsets === 'numbered'
        ? Object.keys(JSON.parse(readFileSync(join(packageDir(name), 'unicode.json'), 'utf8')) as Record<string, string>)
            .filter((key) => /^\[\d+\]$/.test(key))
            .map((key) => key.slice(1, -1))
        : subsets
    faces.push(...names.map((subset) => fontsourceFace(family, subset)))
  }
  return faces
}

export const COVERAGE_FILE = new URL('./font-coverage.json', import.meta.url)

function faceOf(id: string): Face {
  if (id === LIBERATION.id) return LIBERATION
  const [family, subset] = id.split('/') as [NotoFamily, string | undefined]
  if (!(family in FONTSOURCE) || !subset) throw new Error(`font-coverage.json names an unknown face: ${id}`)
  return fontsourceFace(family, subset)
}

/** A family's faces as font-coverage.json lists them: the characters each has, and the first face for each character. */
interface FamilyCoverage {
  faces: Map<Face, Set<number>>
  first: Map<number, Face>
}

let table: Record<string, string> | undefined
const families = new Map<FamilyId, FamilyCoverage>()

/** font-coverage.json ("20-7e,a0,…": hex code points and ranges, per face), read once; a family's sets are built when first asked for. */
function familyCoverage(family: FamilyId): FamilyCoverage {
  let result = families.get(family)
  if (result) return result
  table ??= JSON.parse(readFileSync(COVERAGE_FILE, 'utf8')) as Record<string, string>
  result = { faces: new Map(), first: new Map() }
  for (const [id, ranges] of Object.entries(table)) {
    const face = faceOf(id)
    if (face.family !== family) continue
    const codes = new Set<number>()
    for (const range of ranges.split(',')) {
      const [from, to = from] = range.split('-').map((hex) => parseInt(hex, 16)) as [number, number?]
      for (let code = from; code <= to; code++) {
        codes.add(code)
        if (!result.first.has(code)) result.first.set(code, face)
      }
    }
    result.faces.set(face, codes)
  }
  families.set(family, result)
  return result
}

const SCRIPTS: [RegExp, FamilyId][] = [
  [/\p{Script=Arabic}/u, 'arabic'],
  [/\p{Script=Hebrew}/u, 'hebrew'],
  [/\p{Script=Devanagari}/u, 'noto'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'japanese'],
]
const HAN = /[\p{Script=Han}\p{Script=Bopomofo}]/u
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u
/** Characters that take their script from the text around them. */
const NEUTRAL = /^[\p{Script=Common}\p{Script=Inherited}]+$/u
/** Characters no font needs to have (zero-width, joiners, variation selectors, direction marks): HarfBuzz hides them. */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u
/** Line breaks and other controls: the renderer prints them as spaces. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' })

/** One character of a text and the face that draws it (null: no bundled font has it). */
export interface PlacedCharacter {
  char: string
  /** Offset in the text, in UTF-16 code units (what HarfBuzz reports clusters in). */
  index: number
  face: Face | null
}

function covers(face: Face, chars: string[]): boolean {
  const codes = familyCoverage(face.family).faces.get(face)
  return chars.every((char) => IGNORABLE.test(char) || codes?.has(char.codePointAt(0) as number))
}

/** The first face of the first family (in `order`) that has every one of `chars`. */
function faceFor(chars: string[], order: FamilyId[]): Face | null {
  const base = chars.find((char) => !IGNORABLE.test(char)) ?? chars[0]
  const code = base?.codePointAt(0) ?? -1
  for (const family of order) {
    const coverage = familyCoverage(family)
    const first = coverage.first.get(code)
    if (!first) continue
    if (covers(first, chars)) return first
    // In a family cut into slices, another slice may have the base with its marks.
    const whole = [...coverage.faces.keys()].find((face) => covers(face, chars))
    if (whole) return whole
  }
  return null
}

/**
 * Chooses a face among `families` for every character of `text`, a grapheme (a letter with its
 * marks, a conjunct) at a time so that a cluster stays in one font: the family its script prefers
 * (Han characters go to the Japanese font when the text has kana, else to the Chinese one), else
 * the first of `families` that has it. Neutral characters (spaces, digits, punctuation) stay in
 * the face before them when it has them, so "محمد عبد" is one Arabic run.
 */
export function placeCharacters(text: string, families: readonly FamilyId[] = ALL_FAMILIES): PlacedCharacter[] {
  // Most text is Liberation Sans's alone (Latin, Greek, Cyrillic without combining marks): one face.
  const liberation = familyCoverage('liberation').faces.get(LIBERATION)
  if (families[0] === 'liberation' && liberation && [...text].every((char) => liberation.has(char.codePointAt(0) as number))) {
    let index = 0
    return Array.from(text, (char) => {
      const placed = { char, index, face: LIBERATION }
      index += char.length
      return placed
    })
  }
  const han: FamilyId = KANA.test(text) ? 'japanese' : 'chinese'
  const preferred = (cluster: string): FamilyId | null => {
    if (NEUTRAL.test(cluster)) return null
    if (HAN.test(cluster)) return han
    return SCRIPTS.find(([pattern]) => pattern.test(cluster))?.[1] ?? 'liberation'
  }
  const clusters = [...graphemes.segment(text)].map(({ segment, index }) => ({ segment, index, family: preferred(segment) }))
  // Neutrals take the script before them; leading ones the first script after them.
  let script = clusters.find((cluster) => cluster.family !== null)?.family ?? 'liberation'

  const placed: PlacedCharacter[] = []
  let previous: Face | null = null
  for (const { segment, index, family } of clusters) {
    script = family ?? script
    const chars = [...segment]
    const order = [script, ...families].filter((f) => families.includes(f))
    const face = family === null && previous && covers(previous, chars) ? previous : faceFor(chars, order)
    let offset = index
    for (const char of chars) {
      // A cluster no single face has whole: each character on its own.
      const own = face ?? faceFor([char], order)
      placed.push({ char, index: offset, face: IGNORABLE.test(char) && !own ? previous : own })
      offset += char.length
    }
    previous = placed[placed.length - 1]?.face ?? previous
  }
  return placed
}

/** The face whose replacement glyph (U+FFFD) stands for characters no font has. */
export function replacementFace(): Face {
  const face = placeCharacters('\uFFFD')[0]?.face
  if (!face) throw new Error('no bundled font has U+FFFD')
  return face
}

/**
 * The characters of `text` that no bundled font can draw (e.g. emoji), each once, in order.
 * Controls (printed as spaces) and default-ignorable characters (drawn as nothing) do not count.
 * The text is taken as the renderer takes it: NFC.
 */
export function unprintableCharacters(text: string): string[] {
  const missing = placeCharacters(text.normalize('NFC'))
    .filter(({ char, face }) => face === null && !CONTROL.test(char) && !IGNORABLE.test(char))
    .map(({ char }) => char)
  return [...new Set(missing)]
}

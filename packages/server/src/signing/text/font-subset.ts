import { textEngines } from './engines.ts'

/*
 * hb-subset (HarfBuzz's subsetter, shipped in harfbuzzjs as harfbuzz-subset.wasm, which harfbuzzjs's
 * own API does not wrap): keeps only the glyphs a PDF draws, and fixes a variable font at one
 * weight, so viewers (which ignore variations) draw the weight that was shaped.
 */

interface SubsetExports {
  memory: WebAssembly.Memory
  malloc(size: number): number
  free(pointer: number): void
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number
  hb_blob_destroy(blob: number): void
  hb_blob_get_length(blob: number): number
  hb_blob_get_data(blob: number, length: number): number
  hb_face_create(blob: number, index: number): number
  hb_face_destroy(face: number): void
  hb_face_reference_blob(face: number): number
  hb_set_add(set: number, value: number): void
  hb_subset_input_create_or_fail(): number
  hb_subset_input_destroy(input: number): void
  hb_subset_input_glyph_set(input: number): number
  hb_subset_input_set(input: number, which: number): number
  hb_subset_input_set_flags(input: number, flags: number): void
  hb_subset_input_pin_axis_location(input: number, face: number, axis: number, value: number): number
  hb_subset_or_fail(face: number, input: number): number
  _initialize?: () => void
}

const HB_MEMORY_MODE_READONLY = 1
const HB_SUBSET_SETS_DROP_TABLE_TAG = 3
const HB_SUBSET_FLAGS_NO_HINTING = 0x1
/** Glyph ids stay as they were: the content streams were written with them. */
const HB_SUBSET_FLAGS_RETAIN_GIDS = 0x2
/** Tables a PDF viewer never reads: text arrives shaped, names come from the PDF. */
const DROPPED_TABLES = ['GSUB', 'GPOS', 'GDEF', 'BASE', 'JSTF', 'MATH', 'STAT', 'DSIG', 'name', 'post']

const tag = (name: string): number => Buffer.from(name, 'latin1').readUInt32BE(0)

let subsetter: SubsetExports | undefined

function exports(): SubsetExports {
  if (subsetter) return subsetter
  subsetter = new WebAssembly.Instance(textEngines().subsetter, {}).exports as unknown as SubsetExports
  subsetter._initialize?.()
  return subsetter
}

/** `font` with only `glyphs` (and the glyphs they are built from), ids unchanged; a variable font fixed at `weight`. */
export function subsetFont(font: Uint8Array, glyphs: Iterable<number>, weight?: number): Uint8Array {
  const hb = exports()
  const data = hb.malloc(font.length)
  new Uint8Array(hb.memory.buffer, data, font.length).set(font)
  const blob = hb.hb_blob_create(data, font.length, HB_MEMORY_MODE_READONLY, 0, 0)
  const face = hb.hb_face_create(blob, 0)
  hb.hb_blob_destroy(blob)
  const input = hb.hb_subset_input_create_or_fail()
  try {
    if (!input) throw new Error('hb-subset could not start')
    const glyphSet = hb.hb_subset_input_glyph_set(input)
    for (const glyph of glyphs) hb.hb_set_add(glyphSet, glyph)
    const dropped = hb.hb_subset_input_set(input, HB_SUBSET_SETS_DROP_TABLE_TAG)
    for (const table of DROPPED_TABLES) hb.hb_set_add(dropped, tag(table))
    hb.hb_subset_input_set_flags(input, HB_SUBSET_FLAGS_NO_HINTING | HB_SUBSET_FLAGS_RETAIN_GIDS)
    if (weight !== undefined && !hb.hb_subset_input_pin_axis_location(input, face, tag('wght'), weight)) throw new Error('the font has no weight axis')
    const subset = hb.hb_subset_or_fail(face, input)
    if (!subset) throw new Error('hb-subset failed')
    const result = hb.hb_face_reference_blob(subset)
    const bytes = new Uint8Array(hb.memory.buffer, hb.hb_blob_get_data(result, 0), hb.hb_blob_get_length(result)).slice()
    hb.hb_blob_destroy(result)
    hb.hb_face_destroy(subset)
    return bytes
  } finally {
    if (input) hb.hb_subset_input_destroy(input)
    hb.hb_face_destroy(face)
    hb.free(data)
  }
}

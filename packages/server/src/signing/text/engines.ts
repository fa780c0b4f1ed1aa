import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type * as HarfBuzz from 'harfbuzzjs'

/*
 * The WebAssembly the text renderer runs on: HarfBuzz (shaping), hb-subset (font subsetting,
 * shipped in harfbuzzjs as harfbuzz-subset.wasm) and Google's WOFF2 decoder (wawoff2). Each starts
 * asynchronously, so they are loaded once, up front, by loadTextEngines(), and used synchronously
 * afterwards, in the middle of laying text out. (Loaded with import() rather than a top-level
 * await: the PDF workers load this TypeScript as CommonJS, which cannot hold one.)
 */

interface Woff2Decoder {
  decompress(woff2: Uint8Array): Uint8Array | false
  onRuntimeInitialized?: () => void
  calledRun?: boolean
}

export interface TextEngines {
  hb: typeof HarfBuzz
  /** harfbuzz-subset.wasm, compiled; font-subset.ts instantiates it. */
  subsetter: WebAssembly.Module
  /** The TrueType/OpenType font inside a WOFF2 file. */
  decodeWoff2(woff2: Uint8Array): Uint8Array
}

let loaded: TextEngines | undefined
let loading: Promise<TextEngines> | undefined

async function load(): Promise<TextEngines> {
  const require = createRequire(import.meta.url)
  const decoder = require('wawoff2/build/decompress_binding.js') as Woff2Decoder
  const [hb, subsetter] = await Promise.all([
    import('harfbuzzjs'),
    WebAssembly.compile(readFileSync(require.resolve('harfbuzzjs/dist/harfbuzz-subset.wasm'))),
    decoder.calledRun ? undefined : new Promise<void>((resolve) => (decoder.onRuntimeInitialized = resolve)),
  ])
  return (loaded = {
    hb,
    subsetter,
    decodeWoff2(woff2) {
      const font = decoder.decompress(woff2)
      if (font === false) throw new Error('not a valid WOFF2 font')
      // A view into the decoder's memory, which its next call reuses.
      return font.slice()
    },
  })
}

/** Loads the engines (once per process or worker); every text function needs this first. */
export function loadTextEngines(): Promise<TextEngines> {
  return (loading ??= load())
}

/** The loaded engines; throws when loadTextEngines() has not finished. */
export function textEngines(): TextEngines {
  if (!loaded) throw new Error('the text engines are not loaded: await loadTextEngines() first')
  return loaded
}

/** Pixels darker than mid-grey inside `box` (pixels) of a binary PGM, as pdftoppm -gray writes it. */
export function darkPixels(pgm: Buffer, box: { x: number; y: number; width: number; height: number }): number {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.toString('latin1', 0, 50))
  if (!header) throw new Error('not a binary PGM')
  const width = Number(header[1])
  const offset = header[0].length
  let dark = 0
  for (let y = box.y; y < box.y + box.height; y++) {
    for (let x = box.x; x < box.x + box.width; x++) if ((pgm[offset + y * width + x] ?? 255) < 128) dark++
  }
  return dark
}

/*
 * PDFs written by hand, object by object, so a test can prepare exactly the structure an
 * attacker would hand a signer (an indirect /Contents array, optional content, one object
 * used in two roles, objects inside an object stream). Streams are left unfiltered.
 */

export interface HandmadeOptions {
  /** Object number → body (what goes between "n 0 obj" and "endobj"). */
  objects: Record<number, string>
  root: number
  info?: number
  /** Store these objects in an object stream numbered `stream`, and write a cross-reference stream. */
  compressed?: { stream: number; objects: number[] }
}

/** A stream object body with `data` (latin1) and the right /Length. */
export function streamObject(data: string, dict = ''): string {
  return `<< ${dict} /Length ${Buffer.byteLength(data, 'latin1')} >>\nstream\n${data}\nendstream`
}

/** The body of an object stream holding `members` (bodies from `objects`). */
export function objectStreamBody(objects: Record<number, string>, members: number[]): string {
  const bodies = members.map((num) => {
    const body = objects[num]
    if (body === undefined || body.includes('stream\n')) throw new Error(`object ${num} cannot go into an object stream`)
    return body
  })
  let header = ''
  let data = ''
  members.forEach((num, index) => {
    header += `${num} ${data.length} `
    data += `${bodies[index]}\n`
  })
  return streamObject(header + data, `/Type /ObjStm /N ${members.length} /First ${header.length}`)
}

function bigEndian(value: number, width: number): string {
  let out = ''
  for (let shift = width - 1; shift >= 0; shift--) out += String.fromCharCode(Math.floor(value / 256 ** shift) % 256)
  return out
}

export function handmadePdf(options: HandmadeOptions): Uint8Array {
  const members = options.compressed?.objects ?? []
  const plain: Record<number, string> = {}
  for (const [num, body] of Object.entries(options.objects)) if (!members.includes(Number(num))) plain[Number(num)] = body
  if (options.compressed) plain[options.compressed.stream] = objectStreamBody(options.objects, members)

  let text = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n'
  const offsets = new Map<number, number>()
  for (const num of Object.keys(plain)
    .map(Number)
    .sort((a, b) => a - b)) {
    offsets.set(num, text.length)
    text += `${num} 0 obj\n${plain[num]}\nendobj\n`
  }
  const numbers = [...offsets.keys(), ...members]
  const trailerKeys = `/Root ${options.root} 0 R${options.info ? ` /Info ${options.info} 0 R` : ''}`
  if (!options.compressed) {
    const size = Math.max(...numbers) + 1
    const xref = text.length
    text += `xref\n0 ${size}\n0000000000 65535 f \n`
    for (let num = 1; num < size; num++) {
      const offset = offsets.get(num)
      text += offset === undefined ? '0000000000 00000 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`
    }
    text += `trailer\n<< /Size ${size} ${trailerKeys} >>\nstartxref\n${xref}\n%%EOF\n`
    return Buffer.from(text, 'latin1')
  }
  const xrefNum = Math.max(...numbers) + 1
  const size = xrefNum + 1
  const xref = text.length
  offsets.set(xrefNum, xref)
  let rows = ''
  for (let num = 0; num < size; num++) {
    const offset = offsets.get(num)
    const index = members.indexOf(num)
    if (offset !== undefined) rows += `\x01${bigEndian(offset, 4)}\x00\x00`
    else if (index >= 0) rows += `\x02${bigEndian(options.compressed.stream, 4)}${bigEndian(index, 2)}`
    else rows += `\x00${bigEndian(0, 4)}${bigEndian(num === 0 ? 65535 : 0, 2)}`
  }
  text += `${xrefNum} 0 obj\n${streamObject(rows, `/Type /XRef /Size ${size} /W [1 4 2] ${trailerKeys}`)}\nendobj\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(text, 'latin1')
}

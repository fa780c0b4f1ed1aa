import { PdfArray, PdfNumber, type PDF, type PDFPage, type PdfDict, type PdfObject, type PdfRef } from '@libpdf/core'

/*
 * Page geometry as a viewer displays it: what the template validator, the PDF inspection and the
 * signed-PDF renderer all measure fields against. Its own module so pdf-work/ and signing/ share it
 * without either importing the other's renderer.
 */

export interface PageSize {
  width: number
  height: number
}

export interface PageFrame {
  /** The page as displayed: the visible box, after /Rotate. */
  width: number
  height: number
  /** The page's /Rotate: display space is user space turned this far counter-clockwise. */
  rotation: 0 | 90 | 180 | 270
  /** Maps display space (origin at the displayed bottom-left, y up) onto the page's user space. */
  toUser(x: number, y: number): { x: number; y: number }
}

/** A page attribute, looked up through the page tree as inheritable attributes are (@libpdf/core reads only the page's own). */
function inherited(pdf: PDF, page: PDFPage, key: string): PdfObject | undefined {
  const resolve = (ref: PdfRef) => pdf.getObject(ref)
  let node: PdfDict | undefined = page.dict
  for (let depth = 0; node && depth < 64; depth++) {
    const value = node.get(key, resolve)
    if (value !== undefined) return value
    node = node.getDict('Parent', resolve)
  }
  return undefined
}

type Rect = [number, number, number, number]

function rectOf(pdf: PDF, page: PDFPage, key: string): Rect | undefined {
  const value = inherited(pdf, page, key)
  if (!(value instanceof PdfArray) || value.length !== 4) return undefined
  const resolve = (ref: PdfRef) => pdf.getObject(ref)
  const items = value.toArray().map((_, i) => value.at(i, resolve))
  if (!items.every((item) => item instanceof PdfNumber)) return undefined
  const [a, b, c, d] = items.map((item) => item.value) as Rect
  const rect: Rect = [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)]
  return rect[2] > rect[0] && rect[3] > rect[1] ? rect : undefined
}

/*
 * Field coordinates are measured from the top-left of the page as a viewer displays it: the CropBox
 * (clipped to the MediaBox, whose origin need not be 0,0), turned by /Rotate. @libpdf/core's box
 * getters return the upper-right corner as "width"/"height" and ignore inheritance, hence our own.
 */
export function pageFrame(pdf: PDF, page: PDFPage): PageFrame {
  const media = rectOf(pdf, page, 'MediaBox') ?? [0, 0, 612, 792]
  const crop = rectOf(pdf, page, 'CropBox')
  const visible: Rect = crop ? [Math.max(media[0], crop[0]), Math.max(media[1], crop[1]), Math.min(media[2], crop[2]), Math.min(media[3], crop[3])] : media
  const [x0, y0, x1, y1] = visible[2] > visible[0] && visible[3] > visible[1] ? visible : media
  const width = x1 - x0
  const height = y1 - y0
  const rotate = inherited(pdf, page, 'Rotate')
  const degrees = rotate instanceof PdfNumber ? ((Math.round(rotate.value) % 360) + 360) % 360 : 0
  switch (degrees) {
    case 90:
      return { width: height, height: width, rotation: 90, toUser: (x, y) => ({ x: x1 - y, y: y0 + x }) }
    case 180:
      return { width, height, rotation: 180, toUser: (x, y) => ({ x: x1 - x, y: y1 - y }) }
    case 270:
      return { width: height, height: width, rotation: 270, toUser: (x, y) => ({ x: x0 + y, y: y1 - x }) }
    default:
      // Not a multiple of 90 is invalid; viewers ignore it.
      return { width, height, rotation: 0, toUser: (x, y) => ({ x: x0 + x, y: y0 + y }) }
  }
}

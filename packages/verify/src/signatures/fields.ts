import type { PdfDocument } from '../pdf/document.ts'
import { PdfDict, PdfRef, textOf, type PdfValue } from '../pdf/objects.ts'
import type { IndirectObject } from '../pdf/parser.ts'

/**
 * Signatures are found the way a viewer finds them: through the catalog's /AcroForm
 * /Fields tree, as signature fields (/FT /Sig, inheritable) whose value /V is a
 * signature dictionary. Nothing is found by scanning the bytes for "/ByteRange".
 */

export interface SignatureField {
  /** Fully qualified field name (parent names joined with "."). */
  fieldName: string | null
  /** Object number of the signature dictionary (null when /V is a direct dictionary). */
  objectNumber: number | null
  /** The indirect object the signature dictionary was parsed from: its offsets locate /Contents. */
  container: IndirectObject
  dict: PdfDict
}

export interface FieldSearch {
  hasAcroForm: boolean
  fields: SignatureField[]
  problems: string[]
}

const MAX_DEPTH = 32

export async function findSignatureFields(doc: PdfDocument): Promise<FieldSearch> {
  const result: FieldSearch = { hasAcroForm: false, fields: [], problems: [] }
  const root = await doc.resolveDict(doc.trailer().get('Root'))
  if (!root) {
    result.problems.push('the trailer has no document catalog (/Root)')
    return result
  }
  const acroForm = await doc.resolveDict(root.get('AcroForm'))
  if (!acroForm) return result
  result.hasAcroForm = true
  const fields = (await doc.resolveArray(acroForm.get('Fields'))) ?? []
  const visited = new Set<number>()
  const seenSignatures = new Set<string>()

  const visit = async (
    node: PdfValue,
    parentName: string | null,
    inheritedType: string | null,
    inheritedValue: PdfValue | undefined,
    depth: number,
  ): Promise<void> => {
    if (depth > MAX_DEPTH) {
      result.problems.push('form field tree nested too deeply')
      return
    }
    if (node instanceof PdfRef) {
      if (visited.has(node.num)) return
      visited.add(node.num)
    }
    let holder: IndirectObject | null = null
    let dict: PdfDict | null = null
    if (node instanceof PdfRef) {
      try {
        holder = await doc.getRef(node)
      } catch (error) {
        result.problems.push(`form field ${node.toString()} is unreadable: ${error instanceof Error ? error.message : String(error)}`)
        return
      }
      dict = holder?.value instanceof PdfDict ? holder.value : null
    } else if (node instanceof PdfDict) {
      dict = node
    }
    if (!dict) return
    const partial = textOf(dict.get('T'))
    const name = partial === null ? parentName : parentName ? `${parentName}.${partial}` : partial
    const type = dict.name('FT') ?? inheritedType
    const value = dict.get('V') ?? inheritedValue
    const kids = (await doc.resolveArray(dict.get('Kids'))) ?? []
    const childFields: PdfValue[] = []
    for (const kid of kids) {
      const kidDict = await doc.resolveDict(kid)
      if (kidDict?.has('T')) childFields.push(kid)
    }
    if (childFields.length > 0) {
      for (const kid of childFields) await visit(kid, name, type, value, depth + 1)
      return
    }
    if (type !== 'Sig' || value === undefined || value === null) return
    let container: IndirectObject | null = holder
    let signature: PdfDict | null = null
    let objectNumber: number | null = null
    if (value instanceof PdfRef) {
      try {
        container = await doc.getRef(value)
      } catch (error) {
        result.problems.push(
          `signature dictionary ${value.toString()} of field "${name ?? '?'}" is unreadable: ${error instanceof Error ? error.message : String(error)}`,
        )
        return
      }
      signature = container?.value instanceof PdfDict ? container.value : null
      objectNumber = value.num
    } else if (value instanceof PdfDict) {
      signature = value
    }
    if (!signature || !container) {
      result.problems.push(`signature field "${name ?? '?'}" has no readable signature dictionary`)
      return
    }
    const key = objectNumber === null ? `direct:${container.num}` : String(objectNumber)
    if (seenSignatures.has(key)) return
    seenSignatures.add(key)
    result.fields.push({ fieldName: name, objectNumber, container, dict: signature })
  }

  for (const field of fields) await visit(field, null, null, undefined, 0)
  return result
}

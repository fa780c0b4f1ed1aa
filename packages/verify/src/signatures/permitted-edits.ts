import type { PdfDocument } from '../pdf/document.ts'
import { changedKeys, pdfEqual } from '../pdf/equality.ts'
import { describe, PdfDict, PdfName, textOf, type PdfValue } from '../pdf/objects.ts'
import type { EditableKind, SignedRoles } from './signed-roles.ts'

/**
 * The narrow edits a later update may make to an object the signed revision uses, by the
 * object's structural role in the signed revision (see signed-roles.ts):
 *  - the catalog may gain or change /DSS, /AcroForm and /Extensions (Acrobat adds it with a DSS);
 *  - the form (/AcroForm) may gain signature fields in /Fields and change /SigFlags;
 *  - a page, or its /Annots array, may gain annotations only as below;
 *  - an empty signature field (or its widget) may receive a document timestamp as /V, with
 *    an appearance and new flags, when every widget of the field ends invisible.
 * Anything added to /Fields or /Annots must be a signature field that is empty or holds a
 * document timestamp, whose every annotation is a /Widget that cannot be seen (zero-area
 * /Rect or the Hidden flag) and has no action. Any other annotation, of any subtype, can
 * paint over the page.
 * The signed entries of an array must all stay, in their order (annotations draw in order).
 */

export interface EditCheck {
  doc: PdfDocument
  roles: SignedRoles
  /** The signed revision and the final one. */
  base: number
  last: number
  /** Allowed changes worth reporting. */
  notes: string[]
}

const CATALOG_KEYS = new Set(['DSS', 'AcroForm', 'Extensions'])
const ACROFORM_KEYS = new Set(['Fields', 'SigFlags'])
/** What signing an empty field writes: the value, an appearance, the flags (e.g. Locked). */
const FILLED_FIELD_KEYS = new Set(['V', 'AP', 'F'])
const FILLED_WIDGET_KEYS = new Set(['AP', 'F'])
const HIDDEN_FLAG = 2
const MAX_PARENT_DEPTH = 32

const KIND_NAMES: Record<EditableKind, string> = {
  catalog: 'the document catalog',
  acroform: 'the interactive form (AcroForm)',
  'fields-array': 'the form field list',
  'annots-array': 'an annotation list',
  page: 'a page',
  'empty-signature-field': 'an empty signature field',
  'empty-signature-widget': 'the widget of an empty signature field',
}

function pageLabel(check: EditCheck, num: number): string {
  const page = check.roles.pageNumbers.get(num)
  return page === undefined ? `page object ${num}` : `page object ${num} (page ${page})`
}

/** Why a change to object `num`, which has editable kinds, is not a permitted edit (empty when it is). */
export async function editProblems(check: EditCheck, num: number, kinds: ReadonlySet<EditableKind>, oldValue: PdfValue, newValue: PdfValue): Promise<string[]> {
  const otherUse = check.roles.otherUses.get(num)
  if (otherUse !== undefined) {
    const roles = [...kinds].map((kind) => KIND_NAMES[kind]).join(' and ')
    return [
      `object ${num} is ${roles} but the signed revision also uses it as ${otherUse}, and it was changed: an edit allowed for ${roles} could change what that use shows`,
    ]
  }
  const problems: string[] = []
  for (const kind of kinds) problems.push(...(await kindProblems(check, kind, num, oldValue, newValue)))
  return problems
}

async function kindProblems(check: EditCheck, kind: EditableKind, num: number, oldValue: PdfValue, newValue: PdfValue): Promise<string[]> {
  if (kind === 'fields-array' || kind === 'annots-array') {
    if (!Array.isArray(oldValue) || !Array.isArray(newValue)) return [`object ${num} (${KIND_NAMES[kind]}) is now a ${describe(newValue)}`]
    return additionsProblems(check, oldValue, newValue, `${KIND_NAMES[kind]} (object ${num})`)
  }
  if (!(oldValue instanceof PdfDict && newValue instanceof PdfDict)) return [`object ${num} (${KIND_NAMES[kind]}) is now a ${describe(newValue)}`]
  switch (kind) {
    case 'catalog':
      return catalogProblems(check, oldValue, newValue)
    case 'acroform':
      return formProblems(check, oldValue, newValue)
    case 'page':
      return pageProblems(check, num, oldValue, newValue)
    case 'empty-signature-field':
    case 'empty-signature-widget':
      return emptyFieldProblems(check, kind, num, oldValue, newValue)
  }
}

async function catalogProblems(check: EditCheck, oldCatalog: PdfDict, newCatalog: PdfDict): Promise<string[]> {
  const { doc, base, last } = check
  const problems = changedKeys(oldCatalog, newCatalog, doc.bytes)
    .filter((key) => !CATALOG_KEYS.has(key))
    .map((key) => `the document catalog's /${key} was changed`)
  if (!pdfEqual(oldCatalog.get('DSS'), newCatalog.get('DSS'), doc.bytes)) check.notes.push('a Document Security Store (DSS) was added or updated (allowed)')
  if (!pdfEqual(oldCatalog.get('AcroForm'), newCatalog.get('AcroForm'), doc.bytes)) {
    const oldForm = (await doc.resolveDict(oldCatalog.get('AcroForm'), base)) ?? new PdfDict(new Map())
    const newForm = (await doc.resolveDict(newCatalog.get('AcroForm'), last)) ?? new PdfDict(new Map())
    problems.push(...(await formProblems(check, oldForm, newForm)))
  }
  return problems
}

async function pageProblems(check: EditCheck, num: number, oldPage: PdfDict, newPage: PdfDict): Promise<string[]> {
  const { doc, base, last } = check
  const problems = changedKeys(oldPage, newPage, doc.bytes)
    .filter((key) => key !== 'Annots')
    .map((key) => `${pageLabel(check, num)}: /${key} was changed, so what the page shows may differ from what was signed`)
  if (!pdfEqual(oldPage.get('Annots'), newPage.get('Annots'), doc.bytes)) {
    const oldAnnots = (await doc.resolveArray(oldPage.get('Annots'), base)) ?? []
    const newAnnots = (await doc.resolveArray(newPage.get('Annots'), last)) ?? []
    problems.push(...(await additionsProblems(check, oldAnnots, newAnnots, `the annotations of ${pageLabel(check, num)}`)))
  }
  return problems
}

async function emptyFieldProblems(
  check: EditCheck,
  kind: 'empty-signature-field' | 'empty-signature-widget',
  num: number,
  oldField: PdfDict,
  newField: PdfDict,
): Promise<string[]> {
  const allowed = kind === 'empty-signature-field' ? FILLED_FIELD_KEYS : FILLED_WIDGET_KEYS
  const keys = changedKeys(oldField, newField, check.doc.bytes)
  const problems = keys.filter((key) => !allowed.has(key)).map((key) => `signature field object ${num}: /${key} was changed`)
  // Appearance and flags may change only with the signing (whose widgets filledFieldProblems requires to be invisible).
  const field = check.roles.emptySignatureFields.find((candidate) => candidate.num === num || candidate.widgets.includes(num))
  const signed = field ? await filledValue(check, field.num) : null
  for (const key of keys.filter((changed) => changed !== 'V' && allowed.has(changed))) {
    if (!signed)
      problems.push(`the ${key === 'AP' ? 'appearance (/AP)' : 'flags (/F)'} of empty signature field object ${num} changed although the field was not signed`)
  }
  return problems
}

async function formProblems(check: EditCheck, oldForm: PdfDict, newForm: PdfDict): Promise<string[]> {
  const { doc, base, last } = check
  const problems = changedKeys(oldForm, newForm, doc.bytes)
    .filter((key) => !ACROFORM_KEYS.has(key))
    .map((key) => `the interactive form's (AcroForm) /${key} was changed`)
  if (!pdfEqual(oldForm.get('Fields'), newForm.get('Fields'), doc.bytes)) {
    const oldFields = (await doc.resolveArray(oldForm.get('Fields'), base)) ?? []
    const newFields = (await doc.resolveArray(newForm.get('Fields'), last)) ?? []
    problems.push(...(await additionsProblems(check, oldFields, newFields, 'the form field list')))
  }
  return problems
}

/** `newer` must keep every entry of `older`, in order; what it adds must be invisible empty or document-timestamp signature fields. */
async function additionsProblems(check: EditCheck, older: PdfValue[], newer: PdfValue[], where: string): Promise<string[]> {
  const { bytes } = check.doc
  const problems: string[] = []
  let next = 0
  const added: PdfValue[] = []
  for (const item of newer) {
    if (next < older.length && pdfEqual(older[next], item, bytes)) next++
    else added.push(item)
  }
  if (next < older.length) problems.push(`an entry was removed from ${where}, or its entries were reordered`)
  for (const item of added) {
    const problem = await signatureAdditionProblem(check, item)
    if (problem) problems.push(`${where}: ${problem}`)
    else check.notes.push(`${where} gained a document-timestamp or empty signature field with an invisible widget (allowed)`)
  }
  return problems
}

/** The (inherited) value of a field key, following /Parent. */
async function inherited(check: EditCheck, field: PdfDict, key: string): Promise<PdfValue | undefined> {
  let current: PdfDict | null = field
  for (let depth = 0; current && depth < MAX_PARENT_DEPTH; depth++) {
    if (current.has(key)) return current.get(key)
    current = await check.doc.resolveDict(current.get('Parent'), check.last)
  }
  return undefined
}

function isDocumentTimestamp(signature: PdfDict): boolean {
  return signature.name('Type') === 'DocTimeStamp' || signature.name('SubFilter') === 'ETSI.RFC3161'
}

/** An annotation-like dictionary: one a viewer could draw. */
function isAnnotation(dict: PdfDict): boolean {
  return dict.has('Subtype') || dict.has('Rect') || dict.has('AP')
}

/** Why this annotation could be seen (null when it cannot): it must be a widget with a zero-area /Rect or the Hidden flag. */
async function visibilityProblem(check: EditCheck, annotation: PdfDict, label: string): Promise<string | null> {
  const { doc, last } = check
  const subtype = annotation.name('Subtype')
  if (subtype !== 'Widget')
    return `a /${subtype ?? '(no subtype)'} annotation${label} was added as part of a signature field, but only an invisible widget may be added`
  const flags = await doc.resolve(annotation.get('F'), last)
  if (typeof flags === 'number' && (flags & HIDDEN_FLAG) !== 0) return null
  const numbers: number[] = []
  for (const item of (await doc.resolveArray(annotation.get('Rect'), last)) ?? []) {
    const value = await doc.resolve(item, last)
    if (typeof value === 'number') numbers.push(value)
  }
  if (numbers.length !== 4) return `signature widget${label} has no valid /Rect`
  const [x1, y1, x2, y2] = numbers as [number, number, number, number]
  if (Math.abs(x2 - x1) * Math.abs(y2 - y1) !== 0) return `signature widget${label} is visible (non-zero /Rect, not hidden), so it could paint over the page`
  return null
}

/** Why adding this entry to /Fields or /Annots is not allowed, or null when it is an invisible empty/document-timestamp signature field. */
async function signatureAdditionProblem(check: EditCheck, value: PdfValue): Promise<string | null> {
  const { doc, last } = check
  const resolved = await doc.resolve(value, last)
  if (!(resolved instanceof PdfDict)) return `a ${describe(resolved)} was added`
  const dict = resolved
  const field = dict.has('FT') || dict.has('T') || !dict.has('Parent') ? dict : await doc.resolveDict(dict.get('Parent'), last)
  const fieldName = field ? textOf(field.get('T')) : null
  const label = fieldName === null ? '' : ` "${fieldName}"`
  const type = field ? await inherited(check, field, 'FT') : undefined
  if (!field || !(type instanceof PdfName && type.name === 'Sig')) {
    const subtype = dict.name('Subtype')
    return `${subtype ? `a /${subtype} annotation` : `a ${describe(dict)}`}${label} was added`
  }
  const signature = await doc.resolveDict(await inherited(check, field, 'V'), last)
  if (signature && !isDocumentTimestamp(signature)) return `a new signature field${label} holding an approval signature was added after this signature`
  const annotations: PdfDict[] = []
  if (isAnnotation(field)) annotations.push(field)
  if (dict !== field) annotations.push(dict)
  for (const kid of (await doc.resolveArray(field.get('Kids'), last)) ?? []) {
    const widget = await doc.resolveDict(kid, last)
    if (!widget || widget.has('T')) return `signature field${label} has unexpected kids`
    annotations.push(widget)
  }
  for (const annotation of annotations) {
    const problem = await visibilityProblem(check, annotation, label)
    if (problem) return problem
  }
  // An invisible widget can still act: an action run on opening the page could change the form.
  if ([field, ...annotations].some((entry) => entry.has('A') || entry.has('AA')))
    return `signature field${label} added after this signature carries an action (/A or /AA)`
  return null
}

/** Object `num` in the final revision when it is a dictionary (null when missing or unreadable). */
async function finalDict(check: EditCheck, num: number): Promise<PdfDict | null> {
  const value = (await check.doc.getObject(num, check.last).catch(() => null))?.value
  return value instanceof PdfDict ? value : null
}

/** The signature dictionary an empty signature field of the signed revision holds now, if any. */
async function filledValue(check: EditCheck, fieldNum: number): Promise<PdfDict | null> {
  const field = await finalDict(check, fieldNum)
  if (!field) return null
  const signature = await check.doc.resolveDict(await inherited(check, field, 'V'), check.last)
  return signature?.has('Contents') ? signature : null
}

/** Signature fields that were empty in the signed revision and hold a signature now: only an invisible document timestamp is allowed. */
export async function filledFieldProblems(check: EditCheck): Promise<string[]> {
  const problems: string[] = []
  for (const field of check.roles.emptySignatureFields) {
    const signature = await filledValue(check, field.num)
    if (!signature) continue
    const label = field.name === null ? '' : ` "${field.name}"`
    if (!isDocumentTimestamp(signature)) {
      problems.push(`signature field${label}, empty when this signature was made, now holds an approval signature made after it`)
      continue
    }
    let invisible = true
    for (const widget of field.widgets) {
      const dict = await finalDict(check, widget)
      const problem = dict ? await visibilityProblem(check, dict, label) : `signature widget${label} is unreadable`
      if (problem) problems.push(problem)
      invisible &&= problem === null
    }
    if (invisible) check.notes.push(`empty signature field${label} received a document timestamp (allowed)`)
  }
  return problems
}

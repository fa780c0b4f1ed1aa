import type { PdfDocument } from '../pdf/document.ts'
import type { XrefEntry } from '../pdf/xref.ts'
import { pdfEqual } from '../pdf/equality.ts'
import { describe, PdfRef, type PdfValue } from '../pdf/objects.ts'
import { onlyWhitespace } from '../util/bytes.ts'
import { checkUpdateLayout } from './update-layout.ts'
import { editProblems, filledFieldProblems, type EditCheck } from './permitted-edits.ts'
import { mapSignedRoles, type SignedRoles } from './signed-roles.ts'

/**
 * What incremental updates after a signature changed, and whether each change is one
 * that cannot alter what the signer saw. Every object a later cross-reference section
 * (re)defines or frees — and every object of an object stream it redefines — is compared,
 * by value, between the signed revision and the final document. Whether a change is
 * allowed depends on the object's role *in the signed revision* (signed-roles.ts), never
 * on the key that leads to it afterwards:
 *  - objects the signed revision did not use, or used only as validation data (/DSS),
 *    metadata (/Info) or an empty signature field's value, may be written;
 *  - objects it used otherwise may change only by the narrow edits of permitted-edits.ts
 *    (invisible signature fields, document timestamps, a DSS in the catalog), and only
 *    when they have no other use;
 *  - a new object the signed revision already referred to is a change (a planted
 *    dangling reference), and so is freeing or re-generating a used object.
 * Each refusal names the object, what changed and what the signed revision used it for.
 */

export interface ChangeReport {
  disallowed: string[]
  notes: string[]
}

function inUse(entry: XrefEntry | null): entry is Exclude<XrefEntry, { type: 0 }> {
  return entry !== null && entry.type !== 0
}

/** The generation a reference must carry to reach the entry (objects in object streams have 0). */
function generation(entry: Exclude<XrefEntry, { type: 0 }>): number {
  return entry.type === 1 ? entry.gen : 0
}

/** Why a change to an object used this way matters, in a reader's words. */
function consequence(use: string): string {
  const page = /^page (\d+)/.exec(use)
  if (page) return `page ${page[1]} as signed is drawn with it, so what the page shows may differ from what was signed`
  if (use.includes('/OCProperties')) return 'it decides which optional content (layers) is shown, so content may appear or vanish'
  if (use.startsWith('the catalog /AcroForm')) return 'it belongs to the signed form (its fields, values and appearances)'
  if (/^the catalog \/(Names|Dests|Outlines|OpenAction|AA)\b/.test(use)) return "it holds the document's actions, destinations or embedded files"
  return 'it is part of the signed document'
}

export class ChangeAnalyzer {
  private readonly roles = new Map<number, Promise<SignedRoles>>()
  private readonly layouts = new Map<number, string[]>()

  constructor(private readonly doc: PdfDocument) {}

  /** Problems with the end of the file: data after the last %%EOF, or a bogus last startxref. */
  trailingProblems(): string[] {
    const { doc } = this
    const last = doc.revisions[doc.last]
    const problems: string[] = []
    if (doc.skippedStartxref) problems.push('the file ends with a startxref that does not lead to a cross-reference section')
    if (!last || last.eofEnd < 0) problems.push('the last revision has no %%EOF')
    else if (!onlyWhitespace(doc.bytes, last.eofEnd, doc.bytes.length))
      problems.push(`${doc.bytes.length - last.eofEnd} bytes follow the last %%EOF (data appended without a cross-reference update)`)
    return problems
  }

  /** Changes made after revision `base` (the revision a signature ends with). */
  async after(base: number): Promise<ChangeReport> {
    const { doc } = this
    const report: ChangeReport = { disallowed: [], notes: [] }
    if (base >= doc.last) return report
    for (let r = base + 1; r <= doc.last; r++) report.disallowed.push(...this.layout(r))
    const roles = await this.rolesAt(base)
    const check: EditCheck = { doc, roles, base, last: doc.last, notes: report.notes }
    await this.checkTrailer(base, report)
    const presented = await this.presentedAs()
    for (const num of this.rewritten(base)) report.disallowed.push(...(await this.objectProblems(num, check, presented)))
    report.disallowed.push(...(await filledFieldProblems(check)))
    report.disallowed = [...new Set(report.disallowed)]
    report.notes = [...new Set(report.notes)]
    return report
  }

  private layout(revision: number): string[] {
    let layout = this.layouts.get(revision)
    if (!layout) {
      layout = checkUpdateLayout(this.doc, revision)
      this.layouts.set(revision, layout)
    }
    return layout
  }

  private rolesAt(revision: number): Promise<SignedRoles> {
    let pending = this.roles.get(revision)
    if (!pending) {
      pending = mapSignedRoles(this.doc, revision)
      this.roles.set(revision, pending)
    }
    return pending
  }

  /**
   * Every object number an update after `base` lists, plus the objects stored in an object
   * stream that an update redefined: those change without being listed themselves.
   */
  private rewritten(base: number): number[] {
    const { doc } = this
    const listed = new Set<number>()
    for (let r = base + 1; r <= doc.last; r++) for (const num of (doc.revisions[r]?.entries ?? new Map<number, unknown>()).keys()) listed.add(num)
    const out = new Set(listed)
    for (const revision of doc.revisions) {
      for (const num of revision.entries.keys()) {
        if (out.has(num)) continue
        const before = doc.entry(num, base)
        const now = doc.entry(num, doc.last)
        if ((before?.type === 2 && listed.has(before.stream)) || (now?.type === 2 && listed.has(now.stream))) out.add(num)
      }
    }
    out.delete(0)
    return [...out].sort((a, b) => a - b)
  }

  /** Where the final revision's trailer, catalog and form point: to explain an update that re-points them at a used object. */
  private async presentedAs(): Promise<Map<number, string>> {
    const { doc } = this
    const out = new Map<number, string>()
    const note = (value: PdfValue | undefined, name: string): void => {
      if (value instanceof PdfRef && !out.has(value.num)) out.set(value.num, name)
    }
    const trailer = doc.trailer()
    note(trailer.get('Info'), 'the trailer /Info')
    const catalog = await doc.resolveDict(trailer.get('Root'))
    note(catalog?.get('DSS'), 'the catalog /DSS')
    note(catalog?.get('AcroForm'), 'the catalog /AcroForm')
    note((await doc.resolveDict(catalog?.get('AcroForm')))?.get('Fields'), 'the form /Fields')
    const dss = await doc.resolveDict(catalog?.get('DSS'))
    for (const key of ['Certs', 'OCSPs', 'CRLs', 'VRI']) note(dss?.get(key), `the DSS /${key}`)
    return out
  }

  private async objectProblems(num: number, check: EditCheck, presented: Map<number, string>): Promise<string[]> {
    const { doc } = this
    const { roles, base } = check
    const oldEntry = doc.entry(num, base)
    const newEntry = doc.entry(num, doc.last)
    const use = roles.protectedUses.get(num)
    const shared = roles.alsoReachedAs.get(num)
    const now = presented.get(num)
    const label = use === undefined ? '' : `${use}${shared ? `, and also ${shared}` : ''}${now ? `; the update now reaches it as ${now}` : ''}`
    if (!inUse(oldEntry)) {
      const planted = roles.dangling.get(num)
      if (inUse(newEntry) && planted !== undefined) {
        return [
          `object ${num} (${await this.describeAt(num, doc.last)}) was defined after this signature although the signed revision already referred to it (as ${planted}), so a viewer now shows it there`,
        ]
      }
      return []
    }
    if (use === undefined) {
      if (roles.dss.has(num) && inUse(newEntry)) check.notes.push('the Document Security Store (DSS) was updated (allowed)')
      return []
    }
    if (!inUse(newEntry)) return [`object ${num} (${label}) was deleted after signing: ${consequence(use)}`]
    if (generation(oldEntry) !== generation(newEntry))
      return [`object ${num} (${label}) was replaced by a new generation after signing, so references to it no longer reach it: ${consequence(use)}`]
    let oldValue: PdfValue
    let newValue: PdfValue
    try {
      oldValue = (await doc.getObject(num, base))?.value ?? null
      newValue = (await doc.getObject(num, doc.last))?.value ?? null
    } catch (error) {
      return [`object ${num} (${label}) was redefined after signing and is unreadable (${error instanceof Error ? error.message : String(error)})`]
    }
    if (pdfEqual(oldValue, newValue, doc.bytes)) return []
    const kinds = roles.kinds.get(num)
    if (kinds) return editProblems(check, num, kinds, oldValue, newValue)
    return [`object ${num} (${label}) was changed after signing: ${consequence(use)}`]
  }

  private async describeAt(num: number, revision: number): Promise<string> {
    try {
      return describe((await this.doc.getObject(num, revision))?.value)
    } catch {
      return 'unreadable'
    }
  }

  private async checkTrailer(base: number, report: ChangeReport): Promise<void> {
    const { doc } = this
    const oldTrailer = doc.trailer(base)
    const newTrailer = doc.trailer(doc.last)
    if (!pdfEqual(oldTrailer.get('Root'), newTrailer.get('Root'), doc.bytes)) report.disallowed.push('the document catalog (/Root) was replaced')
    if (!pdfEqual(oldTrailer.get('Encrypt'), newTrailer.get('Encrypt'), doc.bytes)) report.disallowed.push('the encryption dictionary (/Encrypt) was changed')
    const oldInfo = await doc.resolve(oldTrailer.get('Info'), base)
    const newInfo = await doc.resolve(newTrailer.get('Info'), doc.last)
    if (!pdfEqual(oldInfo, newInfo, doc.bytes))
      report.notes.push('the document information dictionary (/Info) changed after this signature (metadata only, allowed)')
  }
}

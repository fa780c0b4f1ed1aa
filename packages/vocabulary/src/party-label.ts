/**
 * How a party (a signer's role in a template) is named to people: roles count from 0 in the
 * API, parties from 1 everywhere a person reads them — the editor, the Send page, the document
 * page and the signed PDF's certificate.
 */
export function partyLabel(role: number): string {
  return `Party ${role + 1}`
}

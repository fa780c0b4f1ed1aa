import type { RelativeDistinguishedNames } from 'pkijs'

/** Distinguished names as text: RFC 4514 attribute names and escaping, in encoded order (e.g. "CN=Leaf, O=Acme"). */

const SHORT_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.4': 'SN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'street',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.12': 'title',
  '2.5.4.42': 'GN',
  '2.5.4.97': 'organizationIdentifier',
  '1.2.840.113549.1.9.1': 'emailAddress',
  '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID',
}

function valueText(value: unknown): string {
  const block = (value as { valueBlock?: { value?: unknown; valueHexView?: Uint8Array } }).valueBlock
  if (typeof block?.value === 'string') return block.value
  const hex = block?.valueHexView
  return hex ? `#${Array.from(hex, (byte) => byte.toString(16).padStart(2, '0')).join('')}` : ''
}

function escape(text: string): string {
  return text
    .replace(/([,+"\\<>;])/g, '\\$1')
    .replace(/^([ #])/, '\\$1')
    .replace(/ $/, '\\ ')
}

export interface NameParts {
  text: string
  commonName: string | null
  organization: string | null
}

export function describeName(name: RelativeDistinguishedNames): NameParts {
  let commonName: string | null = null
  let organization: string | null = null
  const parts = name.typesAndValues.map((attribute) => {
    const text = valueText(attribute.value)
    if (attribute.type === '2.5.4.3' && commonName === null) commonName = text
    if (attribute.type === '2.5.4.10' && organization === null) organization = text
    return `${SHORT_NAMES[attribute.type] ?? attribute.type}=${escape(text)}`
  })
  return { text: parts.join(', '), commonName, organization }
}

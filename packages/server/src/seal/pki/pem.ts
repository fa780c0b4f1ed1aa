export type PemLabel = 'CERTIFICATE' | 'PRIVATE KEY'

/** DER → PEM with the standard 64-column base64 lines. */
export function toPem(der: Uint8Array, label: PemLabel): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? []
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`
}

/** The DER inside the first PEM block with this label; anything around it (comments, other blocks) is ignored. */
export function fromPem(pem: string, label: PemLabel): Uint8Array {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(pem)
  if (!match?.[1]) throw new Error(`expected a PEM "${label}" block`)
  return new Uint8Array(Buffer.from(match[1].replace(/\s+/g, ''), 'base64'))
}

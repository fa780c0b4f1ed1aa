/** Human output: colours only on a terminal without NO_COLOR, aligned tables, and --json for scripts. */

const colorEnabled = (stream: NodeJS.WriteStream): boolean => Boolean(stream.isTTY) && !process.env.NO_COLOR

const style =
  (open: number, close: number) =>
  (text: string, stream: NodeJS.WriteStream = process.stdout): string =>
    colorEnabled(stream) ? `\u001b[${open}m${text}\u001b[${close}m` : text

export const bold = style(1, 22)
export const dim = style(2, 22)
export const red = style(31, 39)
export const green = style(32, 39)
export const yellow = style(33, 39)

/** A document's or signer's status, coloured by what it means. */
export function paintStatus(status: string): string {
  if (status === 'completed' || status === 'signed' || status === 'sealed') return green(status)
  if (status === 'declined' || status === 'voided' || status === 'failed') return red(status)
  if (status === 'sent' || status === 'pending' || status === 'viewed') return yellow(status)
  return status
}

// eslint-disable-next-line no-control-regex -- the escape sequences style() adds
const visibleLength = (text: string): number => text.replace(/\u001b\[\d+m/g, '').length

/** Columns padded to their widest cell, the header in bold. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => visibleLength(row[column] ?? ''))))
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat((widths[column] ?? 0) - visibleLength(cell))))
      .join('  ')
      .trimEnd()
  return [bold(line(headers)), ...rows.map(line)].join('\n') + '\n'
}

export const print = (text: string): void => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)

export const printJson = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)

/** A note for the person at the terminal (progress, hints): stderr, so stdout stays the result. */
export const note = (text: string): void => void process.stderr.write(`${text}\n`)

/** "2026-11-27 16:04" in UTC, or "—". */
export const shortDate = (iso: string | null | undefined): string => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '—')

import { Writable } from 'node:stream'

/** Collects every line a logger writes, as the process's stdout would receive it (pass `stream` as startTestServer's logStream). */
export function logCapture(): { stream: Writable; text: () => string; entries: () => Record<string, unknown>[] } {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString())
      done()
    },
  })
  return {
    stream,
    text: () => lines.join(''),
    entries: () => lines.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>),
  }
}

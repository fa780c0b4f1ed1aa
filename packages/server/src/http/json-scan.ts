/**
 * What a JSON body will cost to parse, measured while it arrives.
 *
 * JSON.parse has no depth limit and costs about a microsecond per level of nesting (8 MB of
 * `[` held the event loop for seconds), and its cost per value (0.1–0.4 µs for an empty
 * object, a key, a number) makes a flat body of millions of values nearly as costly. Text
 * inside strings is cheap to parse (1–7 ms per MB). So each chunk of a JSON body is scanned as
 * it arrives, for nesting depth and number of values outside strings; a body past either bound
 * is refused at once, before the rest is read. Strings are skipped with indexOf. It works on
 * the UTF-8 bytes: every byte JSON gives a meaning to is ASCII, and no byte of a multi-byte
 * character is. The scan does not validate; JSON.parse still parses what passes (no npm parser
 * with a depth limit is both well kept and as fast).
 */

/** How deep any request body may nest: our deepest (an agent's tools/call of create_and_send_document) needs 7. */
export const MAX_JSON_DEPTH = 64
/**
 * How many values (objects, arrays, members and items) any request body may hold. The
 * largest real body, a bulk send to 10,000 recipients, has ~50,000; a flat body of this
 * many values parses in well under 100 ms.
 */
export const MAX_JSON_VALUES = 200_000

/** Nested deeper than MAX_JSON_DEPTH, more than MAX_JSON_VALUES values, or (with `maxRest`) more than one big string. */
export type ScanProblem = 'depth' | 'values' | 'not-one-big-string'

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const OPEN_BRACE = 0x7b
const CLOSE_BRACKET = 0x5d
const CLOSE_BRACE = 0x7d
const COMMA = 0x2c
const COLON = 0x3a
/** Bytes looked at one by one before indexOf is asked: escapes and short strings come close together. */
const NEAR = 8

export class JsonScanner {
  private depth = 0
  /** A first value, then one per comma (items, members) and per colon (a member's value). */
  private values = 1
  /** Bytes of the chunks already scanned. */
  private offset = 0
  private inString = false
  /** Inside a string, the previous chunk ended with a backslash: this chunk's first byte is escaped. */
  private escaped = false
  private stringStart = 0
  /** The longest string so far: where its opening quote is and its length, quotes included. */
  longestStart = -1
  longestLength = 0
  /** Backslash escapes in strings so far. */
  escapes = 0

  /**
   * @param oneBigString when given, the body must be one big string with at most `maxRest`
   *   bytes of anything else around it, and at most one escape per `escapeShare` bytes (plus
   *   `maxRest`'s share): base64 needs none, some encoders write `\/` and wrap lines with `\n`.
   */
  constructor(private readonly oneBigString?: { maxRest: number; escapeShare: number }) {}

  /** Scans the next chunk of the body; a problem as soon as there is one. */
  push(chunk: Uint8Array): ScanProblem | undefined {
    const n = chunk.length
    const base = this.offset
    const maxRest = this.oneBigString?.maxRest ?? Number.POSITIVE_INFINITY
    const escapeShare = this.oneBigString?.escapeShare ?? 0
    // The state lives in locals while the chunk is scanned (stored back below): this loop runs once per byte.
    let { depth, values, inString, escaped, stringStart, longestStart, longestLength, escapes } = this
    let problem: ScanProblem | undefined
    /** The first `byte` at or after `from` in this chunk (n: none). */
    const next = (byte: number, from: number): number => {
      const near = Math.min(n, from + NEAR)
      for (let k = from; k < near; k++) if (chunk[k] === byte) return k
      if (near === n) return n
      const found = chunk.indexOf(byte, near)
      return found === -1 ? n : found
    }
    // Where the next quote and backslash are, each searched again only once passed: linear however escapes fall.
    let nextQuote = -1
    let nextBackslash = -1
    let i = 0
    scan: while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false
          i++
          continue
        }
        if (nextQuote < i) nextQuote = next(QUOTE, i)
        if (nextBackslash < i) nextBackslash = next(BACKSLASH, i)
        if (nextQuote < nextBackslash) {
          inString = false
          const length = base + nextQuote + 1 - stringStart
          if (length > longestLength) {
            longestLength = length
            longestStart = stringStart
          }
          i = nextQuote + 1
          // All but the longest string so far only grows: past maxRest, there is more than one big string.
          if (base + i - longestLength > maxRest) {
            problem = 'not-one-big-string'
            break
          }
          continue
        }
        if (nextBackslash === n) break // the string goes on in the next chunk
        // An escape is a backslash and the byte after it; a run of them (\"\"\"…) is stepped through here.
        i = nextBackslash
        while (i < n && chunk[i] === BACKSLASH) {
          escapes++
          i += 2
        }
        if (i > n) {
          escaped = true
          i = n
        }
        if (escapeShare > 0 && escapes * escapeShare > base + i + maxRest) {
          problem = 'not-one-big-string'
          break
        }
        continue
      }
      // Outside strings: the bytes up to the next string (or the chunk's end) in one go.
      for (; i < n && chunk[i] !== QUOTE; i++) {
        switch (chunk[i]) {
          case OPEN_BRACKET:
          case OPEN_BRACE:
            if (++depth > MAX_JSON_DEPTH) {
              problem = 'depth'
              break scan
            }
            break
          case CLOSE_BRACKET:
          case CLOSE_BRACE:
            depth--
            break
          case COMMA:
          case COLON:
            if (++values > MAX_JSON_VALUES) {
              problem = 'values'
              break scan
            }
            break
          default:
        }
      }
      // All but the longest string so far only grows: past maxRest, there is more than one big string.
      if (base + i - longestLength > maxRest) {
        problem = 'not-one-big-string'
        break
      }
      if (i < n) {
        inString = true
        stringStart = base + i
        i++
      }
    }
    this.depth = depth
    this.values = values
    this.inString = inString
    this.escaped = escaped
    this.stringStart = stringStart
    this.longestStart = longestStart
    this.longestLength = longestLength
    this.escapes = escapes
    this.offset = base + n
    return problem
  }
}

/**
 * @module
 * The OpenTSDB stream layer: a JSON body (one `{metric, timestamp, value, tags}` object or an
 * array) or telnet lines (`[put ]<metric> <ts> <value> k=v ...`) in, a WriteResult out, through
 * the schemaless core. Bytes, a Node Readable, or the lines a telnet TCP connection has read
 * (`telnetLines`, a batch at a time); the parsers (json.ts, telnet.ts) stay pure.
 */
import type { Readable } from 'node:stream'
import type { PointSource, Schemaless, WriteResult } from '../types.js'
import { readAll } from '../read-all.js'
import { forEachLineSlice } from '../slices.js'
import { OpenTsdbJsonParser } from './json.js'
import { TelnetParser } from './telnet.js'
import type { IngestParseError } from '../errors.js'

export type TsdbFormat = 'json' | 'telnet'

/** lines parsed in one go by telnetLines (~100 KB at typical widths) */
const LINES_PER_PARSE = 1000

const NOTHING: WriteResult = { written: 0, rejected: 0, errors: [] }

export class TsdbStream {
  // each parse() call runs to its end without awaiting, so one reused parser per format serves
  // every write of this stream even when their slices interleave
  private readonly telnet = new TelnetParser()
  private readonly json = new OpenTsdbJsonParser()

  constructor(private readonly schemaless: Schemaless) {}

  /**
   * Parses and writes one body into `db` as `user` (WriteOptions.user). A blank body is a successful no-op that does not touch
   * the database (taosAdapter's behaviour). JSON items are numbered from 0 in messages.
   */
  async write(db: string, format: TsdbFormat, bytes: Buffer, ttl: number, user: string): Promise<WriteResult> {
    const body = bytes.toString('utf8')
    if (body.trim() === '') {
      return NOTHING
    }
    const source: PointSource =
      format === 'json'
        ? (onPoint, onError) => {
            // items are numbered from 0 by the parser; the core numbers points from 1
            this.json.parse(
              body,
              (p, index) => {
                onPoint(p, index + 1)
              },
              (e) => {
                onError({ line: e.index === undefined ? 0 : e.index + 1, message: e.message })
              },
            )
          }
        : (onPoint, onError) =>
            forEachLineSlice(bytes, (slice, lineOffset) => {
              this.telnet.parse(slice, onPoint, onError, lineOffset)
            })
    // OpenTSDB points carry millisecond timestamps (seconds are scaled by the parser)
    return this.schemaless.write(db, source, {
      user,
      precision: 'ms',
      ttl,
      ...(format === 'json' ? { where: (n: number) => `item ${n - 1}` } : {}),
    })
  }

  /**
   * The points of telnet lines already split (a TCP receiver's batch, no `\n` inside a line) as
   * a PointSource for the schemaless core (precision TSDB_TS_PRECISION). Lines are numbered from
   * 1 within the batch; `onBadLine` sees each parse error of a pass (the core may run a source
   * twice: it is told `pass` so a caller counts one pass only).
   */
  telnetLines(lines: readonly string[], onBadLine?: (e: IngestParseError, pass: number) => void): PointSource {
    let pass = 0
    return (onPoint, onError) => {
      pass++
      const thisPass = pass
      let offset = 0
      // joined a thousand at a time: one parse call per slice, never one huge string
      for (let i = 0; i < lines.length; i += LINES_PER_PARSE) {
        const chunk = lines.slice(i, i + LINES_PER_PARSE)
        this.telnet.parse(
          chunk.join('\n'),
          onPoint,
          (e) => {
            onBadLine?.(e, thisPass)
            onError(e)
          },
          offset,
        )
        offset += chunk.length
      }
    }
  }

  /** `write` of everything `from` gives until it ends (past `limit` bytes it fails; 0: no cap). */
  async writeFrom(db: string, format: TsdbFormat, from: Readable, ttl: number, limit: number, user: string): Promise<WriteResult> {
    return this.write(db, format, await readAll(from, limit), ttl, user)
  }
}

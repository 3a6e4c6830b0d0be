import { afterAll, beforeAll, describe, it } from 'vitest'
import {
  ddlCases,
  dropCases,
  httpCodeCases,
  insertCases,
  largeResultCase,
  restCases,
  rowLimitCases,
  selectCases,
  showCases,
  systemCases,
  userCases,
} from './cases.js'
import type { Case, Server } from './harness.js'
import { privilegeCases } from './privilege-cases.js'
import { windowsCases } from './cases-windows.js'
import { interpCases } from './cases-interp.js'
import { calendarCases } from './cases-calendar.js'
import { stmtsCases } from './cases-stmts.js'
import { setsCases } from './cases-sets.js'
import { scalarCases } from './cases-scalar.js'
import { funcsAggCases } from './cases-funcs-agg.js'
import { sqlfixCases } from './cases-sqlfix.js'
import { twaCases } from './cases-twa.js'
import { fdivCases } from './cases-fdiv.js'
import { runCase, startServer } from './harness.js'

/**
 * The /rest/sql conformance suite, backend-neutral: every case goes through the real HTTP
 * server (startAdapter on port 0) and compares the response with what TDengine clients expect.
 * `storageUrl` is called once per server started (three: default settings,
 * httpCodeServerError=true, restfulRowLimit=2); each uses its own database names.
 */
export function runConformance(name: string, storageUrl: () => Promise<string> | string): void {
  describe(`/rest/sql conformance on ${name}`, () => {
    describe('default settings', () => {
      let server: Server | undefined
      beforeAll(async () => {
        server = await startServer(await storageUrl(), (c) => {
          c.rest.tokens = ['cftoken=root', 'pvtoken=pv_writer']
        }, 'CONFORMANCE_URL_DEFAULT')
      })
      afterAll(async () => {
        await server?.stop()
      })
      const groups: Array<[string, Case[]]> = [
        ['system functions', systemCases()],
        ['databases, tables, DESCRIBE', ddlCases()],
        ['INSERT', insertCases()],
        ['SHOW', showCases()],
        ['SELECT', selectCases()],
        ['large result', largeResultCase()],
        ['windows and INTERP', [...windowsCases(), ...interpCases(), ...calendarCases()]],
        ['aggregate, selection and time-series functions', funcsAggCases()],
        ['users', userCases()],
        ['privileges', privilegeCases()],
        ['auth, parameters, vgid', restCases()],
        ['statements (DELETE, INSERT ... SELECT, RENAME, COMMENT, ALTER DATABASE, performance_schema)', stmtsCases()],
        ['sets: JSON tags, UNION, JOIN, SELECT TAGS', setsCases()],
        ['scalar functions', scalarCases()],
        ['gaps after issue 35: exact 64-bit integers, backend errors, GREATEST/LEAST, DIFF beside an aggregate', sqlfixCases()],
        ['TWA inside INTERVAL windows, the curve cut at the window edges', twaCases()],
        ['DOUBLE / with C results (inf, 0) on every backend', fdivCases()],
        ['DROP', dropCases()],
      ]
      for (const [group, cases] of groups) {
        describe(group, () => {
          for (const c of cases) {
            it(c.name, async () => {
              await runCase((server as Server).url, c)
            })
          }
        })
      }
    })

    describe('httpCodeServerError=true', () => {
      let server: Server | undefined
      beforeAll(async () => {
        server = await startServer(await storageUrl(), (c) => {
          c.httpCodeServerError = true
        }, 'CONFORMANCE_URL_HTTPCODE')
      })
      afterAll(async () => {
        await server?.stop()
      })
      for (const c of httpCodeCases()) {
        it(c.name, async () => {
          await runCase((server as Server).url, c)
        })
      }
    })

    describe('restfulRowLimit=2', () => {
      let server: Server | undefined
      beforeAll(async () => {
        server = await startServer(await storageUrl(), (c) => {
          c.restfulRowLimit = 2
        }, 'CONFORMANCE_URL_ROWLIMIT')
      })
      afterAll(async () => {
        await server?.stop()
      })
      for (const c of rowLimitCases()) {
        it(c.name, async () => {
          await runCase((server as Server).url, c)
        })
      }
    })
  })
}

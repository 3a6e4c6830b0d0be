/**
 * A load of oversize bodies from a process of its own (so its work does not delay the test's own
 * measurements): `tsx test/lib/oversize-load.ts <url> <clients> <megabytes>` posts that many
 * chunked SQL literals of that size to <url>/rest/sql at once, as root, and prints their answers
 * as one JSON array on stdout.
 */
import { sendOversize } from './oversize.js'

const [url, clients, megabytes] = process.argv.slice(2)
const auth = `Basic ${Buffer.from('root:taosdata').toString('base64')}`
const literal = Buffer.alloc(64 * 1024, 0x78)
literal.write("insert into t values (now, '")
const answers = await Promise.all(
  Array.from({ length: Number(clients) }, () =>
    sendOversize(`${url}/rest/sql`, { Authorization: auth }, { chunk: literal, max: Number(megabytes) * 1024 * 1024 }, 30_000),
  ),
)
process.stdout.write(JSON.stringify(answers.map((a) => ({ status: a.status, json: a.json, ms: a.ms, sent: a.sent }))))

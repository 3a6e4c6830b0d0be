import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ownedString } from './owned-string.js'

const MODULE_TS = join(import.meta.dirname, 'owned-string.ts')

/** MB of heap still used after keeping a 30-character cut of each of 300 strings of 600 KB, with or without ownedString. */
function keptHeapMiB(owned: boolean): number {
  const script = `
    const { ownedString } = await import(${JSON.stringify(MODULE_TS)})
    const keep = []
    for (let i = 0; i < 300; i++) {
      const body = (String.fromCharCode(97 + (i % 26)) + i).repeat(100000).slice(0, 600000)
      const cut = body.slice(1000, 1030)
      keep.push(${owned} ? ownedString(cut) : cut)
    }
    globalThis.gc(); globalThis.gc()
    process.stdout.write(String(process.memoryUsage().heapUsed / 1048576 + keep.length * 0))
  `
  return Number(execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script]).toString())
}

/**
 * Whether V8 represents each string like a flat sequential one (same hidden class): a plain cut
 * of a long string, a concatenation, and ownedString of each. Asked through %HaveSameMap, which
 * answers a value; %DebugPrint's output, written through C stdio, was sometimes cut short at exit
 * under tsx.
 */
function flatness(): boolean[] {
  // the natives syntax goes through Function: tsx's transform would reject it in the script itself
  const script = `
    const { ownedString } = await import(${JSON.stringify(MODULE_TS)})
    const body = 'x'.repeat(1000) + 'host=h0001,region=eu-west-1,rack=r17'
    const flat = JSON.parse('"abcdefghijklmnopqrstuvwxyz0123456789"')
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)')
    const cut = body.slice(1000, 1036)
    const cons = 't_' + body.slice(1000)
    process.stdout.write(JSON.stringify([cut, ownedString(cut), cons, ownedString(cons)].map((s) => sameMap(flat, s))))
  `
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script]).toString()
  return JSON.parse(out) as boolean[]
}

describe('ownedString', () => {
  it('is the same text', () => {
    for (const s of ['', 'a', 'host=h0001', 'x'.repeat(13), 'név ü €'.repeat(5), 'lone \ud800 surrogate \udfff', 'ctl \u0000\n"\\']) {
      expect(ownedString(s)).toBe(s)
    }
  })

  it('is a flat string, not a view of a longer one or a concatenation (slow Map-key comparisons)', () => {
    // a plain cut and a concatenation are not flat; their ownedString copies are
    expect(flatness()).toEqual([false, true, false, true])
  })

  it('keeps nothing of the string it was cut from alive (a plain cut keeps it all)', () => {
    const plain = keptHeapMiB(false)
    const owned = keptHeapMiB(true)
    // 300 x 600 KB of one-byte text is ~170 MB: a plain cut keeps a large part of it
    expect(plain).toBeGreaterThan(50)
    expect(owned).toBeLessThan(20)
  })
})

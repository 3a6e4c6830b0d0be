import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { TAG_NULL_NAME, childTableName, compareTagKeys, sortTags } from './naming.js'

const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex')

describe('compareTagKeys / sortTags', () => {
  it('orders keys case-insensitively, shorter first on a common prefix', () => {
    // Plain order
    expect(sortTags([['b', '1'], ['a', '2']])).toEqual([['a', '2'], ['b', '1']])
    // Case is ignored over the common prefix
    expect(sortTags([['b', '1'], ['A', '2'], ['a1', '3']]).map((t) => t[0])).toEqual(['A', 'a1', 'b'])
    // Shorter key first when one is a prefix of the other (also across case)
    expect(sortTags([['hostname', '1'], ['HOST', '2'], ['ho', '3']]).map((t) => t[0])).toEqual(['ho', 'HOST', 'hostname'])
    // Keys equal ignoring case keep their input order (stable sort; the compare is 0)
    expect(compareTagKeys('Host', 'hOST')).toBe(0)
    expect(sortTags([['Host', '1'], ['hOST', '2']])).toEqual([['Host', '1'], ['hOST', '2']])
    // Folding maps 'A'..'Z' to 0x61..0x7A, so '_' (0x5F) sorts before every letter of either case
    expect(compareTagKeys('_x', 'a')).toBeLessThan(0)
    expect(compareTagKeys('Z', '_')).toBeGreaterThan(0)
    // Non-ASCII keys compare by UTF-8 bytes: U+FF61 (EF BD A1) < U+1F600 (F0 9F 98 80),
    // although UTF-16 puts the surrogate D83D first.
    expect(compareTagKeys('\uFF61', '\u{1F600}')).toBeLessThan(0)
    expect(compareTagKeys('é', 'z')).toBeGreaterThan(0)
  })

  it('does not modify its input', () => {
    const tags: Array<[string, string]> = [['b', '1'], ['a', '2']]
    sortTags(tags)
    expect(tags).toEqual([['b', '1'], ['a', '2']])
  })
})

describe('childTableName', () => {
  it('hashes the sorted tag string (sql-dialect 9.3 worked example)', () => {
    // st,t1=3,t2=4,t3=t3 c1=3i64 ... -> md5("st,t1=3,t2=4,t3=t3")
    const name = childTableName('st', [['t3', 't3'], ['t1', '3'], ['t2', '4']])
    expect(name).toBe('t_' + md5('st,t1=3,t2=4,t3=t3'))
    expect(name).toMatch(/^t_[0-9a-f]{32}$/)
  })

  it('is independent of the tag order sent, and sensitive to names and values', () => {
    const a = childTableName('cpu', [['host', 'a'], ['region', 'eu']])
    expect(childTableName('cpu', [['region', 'eu'], ['host', 'a']])).toBe(a)
    expect(childTableName('cpu', [['host', 'b'], ['region', 'eu']])).not.toBe(a)
    expect(childTableName('Cpu', [['host', 'a'], ['region', 'eu']])).not.toBe(a)
    expect(a).toBe('t_' + md5('cpu,host=a,region=eu'))
  })

  it('uses the key case and the sort rule in the hashed text', () => {
    expect(childTableName('m', [['hostname', 'x'], ['HOST', 'y']])).toBe('t_' + md5('m,HOST=y,hostname=x'))
  })

  it('hashes UTF-8 bytes', () => {
    expect(childTableName('天气', [['城市', '北京']])).toBe('t_' + md5('天气,城市=北京'))
    expect(md5('天气,城市=北京')).toBe(createHash('md5').update(Buffer.from('天气,城市=北京', 'utf8')).digest('hex'))
  })

  it('hashes the super table name alone when there are no tags (_tag_null rule)', () => {
    expect(TAG_NULL_NAME).toBe('_tag_null')
    expect(childTableName('meters', [])).toBe('t_' + md5('meters'))
  })
})

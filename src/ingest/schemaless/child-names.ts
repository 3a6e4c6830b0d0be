/** The process-wide (super table, tag set) -> child table name cache of the schemaless core. */
import { childTableName } from '../naming.js'
import { ownedString } from '../../owned-string.js'

/** bound of the process-wide (stable, tag set) -> child name cache */
const CHILD_NAME_CACHE_MAX = 200_000

/**
 * (super table, tag set) -> child table name, process-wide: the MD5 of a tag set is computed
 * once. Two levels, so a lookup hashes the tag-set key as it is (a series key decoded once keeps
 * its hash) instead of a new concatenation per point.
 */
export class ChildNameCache {
  private readonly byStable = new Map<string, Map<string, string>>()
  private size = 0

  get(stable: string, tagKey: string, tags: Array<[string, string]>): string {
    let names = this.byStable.get(stable)
    if (names === undefined) {
      names = new Map()
      // the cache outlives the request the name was parsed from (ownedString)
      this.byStable.set(ownedString(stable), names)
    }
    let name = names.get(tagKey)
    if (name === undefined) {
      name = childTableName(stable, tags)
      if (this.size >= CHILD_NAME_CACHE_MAX) {
        this.byStable.clear()
        this.size = 0
        names = new Map()
        this.byStable.set(ownedString(stable), names)
      }
      names.set(tagKey, name)
      this.size++
    }
    return name
  }
}

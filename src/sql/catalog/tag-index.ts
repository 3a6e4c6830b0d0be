import type { ColumnDef, StableInfo, TableInfo, TagValue, TdType } from '../../storage/td-types.js'

/**
 * Per (database, super table): a tag's value -> the `_tid`s of the children that hold it, so the
 * planner can turn `tag = 'x'` into a `_tid` list without reading the tag table. Built lazily (a
 * super table nobody filters by tag costs nothing; a tag nobody filters by neither) from the
 * catalog's children, and valid while `Catalog.version` is unchanged (see TagIndexes).
 */

const INTEGER_TAGS = new Set<TdType>(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'TINYINT UNSIGNED', 'SMALLINT UNSIGNED', 'INT UNSIGNED', 'BIGINT UNSIGNED'])

/** tag types whose equality the index decides exactly as the backend's `=` would */
export function indexableTag(type: TdType): boolean {
  return type === 'VARCHAR' || type === 'NCHAR' || INTEGER_TAGS.has(type)
}

/** an integer tag's range, for literals the backend would cast to the tag's type */
export const INTEGER_RANGES: Partial<Record<TdType, [bigint, bigint]>> = {
  TINYINT: [-128n, 127n],
  SMALLINT: [-32768n, 32767n],
  INT: [-2147483648n, 2147483647n],
  BIGINT: [-9223372036854775808n, 9223372036854775807n],
  'TINYINT UNSIGNED': [0n, 255n],
  'SMALLINT UNSIGNED': [0n, 65535n],
  'INT UNSIGNED': [0n, 4294967295n],
  'BIGINT UNSIGNED': [0n, 18446744073709551615n],
}

/**
 * The key a stored tag value is indexed by: text tags as the text the tag table holds
 * (row-codecs textTag), integers as canonical decimal text (as tagLiteral writes them); undefined
 * for NULL, which no equality matches.
 */
export function tagKey(type: TdType, v: TagValue | undefined): string | undefined {
  if (v === null || v === undefined) {
    return undefined
  }
  if (type === 'VARCHAR' || type === 'NCHAR') {
    return typeof v === 'object' ? JSON.stringify(v) : String(v)
  }
  const s = typeof v === 'bigint' ? v.toString() : typeof v === 'number' ? String(Math.trunc(v)) : String(v)
  return /^-?\d+$/.test(s) ? BigInt(s).toString() : undefined
}

/** one value's children: a single tid (the common case, a tag naming the series) or several */
type Tids = number | number[]

export class TagIndex {
  private readonly byTag = new Map<string, Map<string, Tids>>()

  constructor(
    /** the super table the index was built for (a new object after any ALTER of it) */
    readonly stable: StableInfo,
    /** Catalog.version the index is valid at */
    public version: number,
    private readonly children: () => Iterable<TableInfo>,
  ) {}

  /** `_tid`s of the children whose tag `tag` has one of `keys` (tagKey form), ascending */
  tids(tag: string, keys: string[]): number[] {
    const map = this.tagMap(tag)
    if (map === undefined) {
      return []
    }
    const out = new Set<number>()
    for (const k of keys) {
      const hit = map.get(k)
      if (typeof hit === 'number') {
        out.add(hit)
      } else if (hit !== undefined) {
        hit.forEach((t) => out.add(t))
      }
    }
    return [...out].sort((a, b) => a - b)
  }

  /** children created since the index was built (only the tags already mapped need them) */
  add(infos: Iterable<TableInfo>): void {
    for (const info of infos) {
      if (info.kind !== 'child' || info.stable !== this.stable.name) {
        continue
      }
      for (const [tag, map] of this.byTag) {
        const def = this.stable.tags.find((c) => c.name === tag) as ColumnDef
        put(map, tagKey(def.type, info.tags?.[tag]), info.tid)
      }
    }
  }

  private tagMap(tag: string): Map<string, Tids> | undefined {
    let map = this.byTag.get(tag)
    if (map !== undefined) {
      return map
    }
    const def = this.stable.tags.find((c) => c.name === tag)
    if (def === undefined || !indexableTag(def.type)) {
      return undefined
    }
    map = new Map()
    for (const t of this.children()) {
      if (t.kind === 'child' && t.stable === this.stable.name) {
        put(map, tagKey(def.type, t.tags?.[tag]), t.tid)
      }
    }
    this.byTag.set(tag, map)
    return map
  }
}

function put(map: Map<string, Tids>, key: string | undefined, tid: number): void {
  if (key === undefined) {
    return
  }
  const cur = map.get(key)
  if (cur === undefined) {
    map.set(key, tid)
  } else if (typeof cur === 'number') {
    map.set(key, [cur, tid])
  } else {
    cur.push(tid)
  }
}

/**
 * The catalog's tag indexes, one per (database, super table) somebody filtered by tag. An index
 * is used only at the Catalog.version it was built at and for the same StableInfo object; every
 * change of children or tags bumps the version (setTags included), so a stale one is rebuilt.
 * Children created in one batch are added instead (createChildTables), so steady auto-creation
 * elsewhere does not make every query rebuild.
 */
export class TagIndexes {
  private readonly map = new Map<string, TagIndex>()

  get(db: string, st: StableInfo, version: number, children: () => Iterable<TableInfo>): TagIndex {
    const key = `${db}\u0000${st.name}`
    const cur = this.map.get(key)
    if (cur !== undefined && cur.version === version && cur.stable === st) {
      return cur
    }
    const idx = new TagIndex(st, version, children)
    this.map.set(key, idx)
    return idx
  }

  /**
   * `infos` (children of database `db`) were added and nothing else changed between versions
   * `before` and `after`: every index valid at `before` stays valid, with them added.
   */
  added(db: string, before: number, after: number, infos: TableInfo[]): void {
    for (const [key, idx] of this.map) {
      if (idx.version !== before) {
        continue
      }
      if (key.startsWith(`${db}\u0000`)) {
        idx.add(infos)
      }
      idx.version = after
    }
  }

  /** a super table (or with no name, every one of database `db`) was dropped */
  forget(db: string, stable?: string): void {
    if (stable !== undefined) {
      this.map.delete(`${db}\u0000${stable}`)
      return
    }
    for (const key of [...this.map.keys()]) {
      if (key.startsWith(`${db}\u0000`)) {
        this.map.delete(key)
      }
    }
  }

  clear(): void {
    this.map.clear()
  }
}

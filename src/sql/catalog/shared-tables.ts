import type { SharedLayout, StableInfo } from '../../storage/td-types.js'

/**
 * Which shared tables a database's super tables use (routes.ts): one data table per column
 * shape and one tag table per tag shape, a shape being the physical column list (names and
 * types). A super table costs DuckDB two views instead of two tables: ~13 instead of ~27 KiB of
 * memory (bench/README.md), and no 256 KiB block of its own on disk. The index is built from the
 * catalog's super tables on first use in a database and kept while they change.
 */

/** the `nextTid` key of a super table's children: one sequence for all shared super tables of a database, whose `_tid`s share tables */
export function childTidKey(db: string, st: StableInfo | undefined, stable: string): string {
  return st?.shared !== undefined ? `${db}\u0000\u0001` : `${db}\u0000${stable}`
}

interface Use {
  table: string
  users: number
}

interface DbShapes {
  data: Map<string, Use>
  tags: Map<string, Use>
  nextStid: number
  /** next number for a new shared table's name (`$d<n>`, `$t<n>`) */
  nextName: number
}

/** Where a new super table goes: its layout, and which of its two tables must be created first. */
export interface Placement {
  layout: SharedLayout
  newData: boolean
  newTags: boolean
}

const NAME_RE = /^\$[dt](\d+)$/

export class SharedShapes {
  private readonly byDb = new Map<string, DbShapes>()

  /** forget everything (the catalog was loaded again) */
  clear(): void {
    this.byDb.clear()
  }

  /** forget a database's index (dropped, or a failed change: rebuilt from the catalog on next use) */
  forget(db: string): void {
    this.byDb.delete(db)
  }

  private index(db: string, stables: Iterable<StableInfo>, shape: (st: StableInfo) => [string, string]): DbShapes {
    let x = this.byDb.get(db)
    if (x === undefined) {
      x = { data: new Map(), tags: new Map(), nextStid: 1, nextName: 1 }
      for (const st of stables) {
        if (st.shared === undefined) {
          continue
        }
        const [dataKey, tagsKey] = shape(st)
        use(x.data, dataKey, st.shared.data)
        use(x.tags, tagsKey, st.shared.tags)
        x.nextStid = Math.max(x.nextStid, st.shared.stid + 1)
        for (const name of [st.shared.data, st.shared.tags]) {
          const m = NAME_RE.exec(name)
          if (m !== null) {
            x.nextName = Math.max(x.nextName, Number(m[1]) + 1)
          }
        }
      }
      this.byDb.set(db, x)
    }
    return x
  }

  /**
   * The layout of a new super table of shape [dataKey, tagsKey] in `db`, counted as a user of its
   * tables (call `forget(db)` when it is not created after all). `taken` tells a name another
   * table of the database already has.
   */
  place(db: string, stables: Iterable<StableInfo>, shape: (st: StableInfo) => [string, string], keys: [string, string], taken: (name: string) => boolean): Placement {
    const x = this.index(db, stables, shape)
    const fresh = (prefix: string): string => {
      let name = `${prefix}${x.nextName++}`
      while (taken(name)) {
        name = `${prefix}${x.nextName++}`
      }
      return name
    }
    const data = x.data.get(keys[0])
    const tags = x.tags.get(keys[1])
    const layout: SharedLayout = { stid: x.nextStid++, data: data?.table ?? fresh('$d'), tags: tags?.table ?? fresh('$t') }
    use(x.data, keys[0], layout.data)
    use(x.tags, keys[1], layout.tags)
    return { layout, newData: data === undefined, newTags: tags === undefined }
  }

  /**
   * `st` no longer uses its shared tables (dropped or given tables of its own): the tables no
   * super table uses any more, which the caller drops.
   */
  release(db: string, stables: Iterable<StableInfo>, shape: (st: StableInfo) => [string, string], st: StableInfo): string[] {
    if (st.shared === undefined) {
      return []
    }
    const x = this.index(db, stables, shape)
    const [dataKey, tagsKey] = shape(st)
    const unused: string[] = []
    for (const [m, key] of [[x.data, dataKey], [x.tags, tagsKey]] as const) {
      const u = m.get(key)
      if (u !== undefined && --u.users <= 0) {
        m.delete(key)
        unused.push(u.table)
      }
    }
    return unused
  }
}

function use(m: Map<string, Use>, key: string, table: string): void {
  const u = m.get(key)
  if (u === undefined) {
    m.set(key, { table, users: 1 })
  } else {
    u.users++
  }
}

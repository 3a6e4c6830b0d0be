import type { Dialect } from '../../storage/dialect.js'
import type { SharedLayout, StableInfo } from '../../storage/td-types.js'

/**
 * Which shared tables a database's super tables use (routes.ts): data tables per column shape
 * and tag tables per tag shape, a shape being the physical column list (names and types), each
 * holding up to STABLES_PER_TABLE super tables. A super table costs DuckDB two views instead of
 * two tables: ~10 instead of ~40 KiB of memory (bench/README.md), and no 256 KiB block of its own
 * on disk. A database's first OWN_TABLES_FIRST super tables keep tables of their own. The index
 * is built from the catalog's super tables on first use in a database and kept while they change.
 */

/**
 * The physical table holding a super table's data (`tags` false) or tags, and the condition that
 * chooses its rows there (`TRUE` in a table of its own): where DML that cannot go through the
 * views (DELETE, UPDATE, INSERT ... VALUES) is sent.
 */
export function physicalOf(d: Dialect, st: StableInfo, tags: boolean): { table: string; rows: string } {
  const table = st.shared === undefined ? (tags ? `${st.name}$tags` : st.name) : tags ? st.shared.tags : st.shared.data
  return {
    table: `${d.quoteIdent(d.schemaName(st.db))}.${d.quoteIdent(table)}`,
    rows: st.shared === undefined ? 'TRUE' : `${d.quoteIdent('_stid')} = ${st.shared.stid}`,
  }
}

/** the `nextTid` key of a super table's children: one sequence for all shared super tables of a database, whose `_tid`s share tables */
export function childTidKey(db: string, st: StableInfo | undefined, stable: string): string {
  return st?.shared !== undefined ? `${db}\u0000\u0001` : `${db}\u0000${stable}`
}

interface Use {
  /** the shape the table holds */
  key: string
  users: number
}

interface DbShapes {
  /** shared tables by name, data and tag tables alike */
  tables: Map<string, Use>
  /** per shape, the data (`d`) or tag (`t`) table new super tables go to: `d` + key, `t` + key */
  current: Map<string, string>
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

/**
 * Super tables in one shared table at most: a scan of one filters its neighbours' rows out, so
 * their number is bounded (a full table's shape gets a new one).
 */
export const STABLES_PER_TABLE = 256

/**
 * The first super tables of a database get tables of their own: a database of a few (often
 * large) super tables scans each alone, and only a database of many small ones, where memory per
 * super table counts, shares.
 */
export const OWN_TABLES_FIRST = 64

export class SharedShapes {
  private readonly byDb = new Map<string, DbShapes>()

  /**
   * `stablesOf`: the catalog's super tables of a database (the index is built from them);
   * `shape`: a super table's [data, tags] shape keys
   */
  constructor(
    private readonly stablesOf: (db: string) => Iterable<StableInfo>,
    private readonly shape: (st: StableInfo) => [string, string],
  ) {}

  /** forget everything (the catalog was loaded again) */
  clear(): void {
    this.byDb.clear()
  }

  /** forget a database's index (dropped, or a failed change: rebuilt from the catalog on next use) */
  forget(db: string): void {
    this.byDb.delete(db)
  }

  private index(db: string): DbShapes {
    let x = this.byDb.get(db)
    if (x === undefined) {
      x = { tables: new Map(), current: new Map(), nextStid: 1, nextName: 1 }
      for (const st of this.stablesOf(db)) {
        if (st.shared === undefined) {
          continue
        }
        const [dataKey, tagsKey] = this.shape(st)
        use(x, `d${dataKey}`, st.shared.data)
        use(x, `t${tagsKey}`, st.shared.tags)
        x.nextStid = Math.max(x.nextStid, st.shared.stid + 1)
        for (const name of [st.shared.data, st.shared.tags]) {
          const m = NAME_RE.exec(name)
          if (m !== null) {
            x.nextName = Math.max(x.nextName, Number(m[1]) + 1)
          }
        }
      }
      // new super tables go to a table of their shape that has room
      for (const [table, u] of x.tables) {
        if (u.users < STABLES_PER_TABLE) {
          x.current.set(u.key, table)
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
  place(db: string, keys: [string, string], taken: (name: string) => boolean): Placement {
    const x = this.index(db)
    const pick = (key: string, prefix: string): { table: string; fresh: boolean } => {
      const cur = x.current.get(key)
      if (cur !== undefined && (x.tables.get(cur)?.users ?? 0) < STABLES_PER_TABLE) {
        return { table: cur, fresh: false }
      }
      let name = `${prefix}${x.nextName++}`
      while (taken(name)) {
        name = `${prefix}${x.nextName++}`
      }
      x.current.set(key, name)
      return { table: name, fresh: true }
    }
    const data = pick(`d${keys[0]}`, '$d')
    const tags = pick(`t${keys[1]}`, '$t')
    use(x, `d${keys[0]}`, data.table)
    use(x, `t${keys[1]}`, tags.table)
    return { layout: { stid: x.nextStid++, data: data.table, tags: tags.table }, newData: data.fresh, newTags: tags.fresh }
  }

  /**
   * `st` no longer uses its shared tables (dropped or given tables of its own): the tables no
   * super table uses any more, which the caller drops.
   */
  release(st: StableInfo): string[] {
    if (st.shared === undefined) {
      return []
    }
    const x = this.index(st.db)
    const unused: string[] = []
    for (const table of [st.shared.data, st.shared.tags]) {
      const u = x.tables.get(table)
      if (u !== undefined && --u.users <= 0) {
        x.tables.delete(table)
        if (x.current.get(u.key) === table) {
          x.current.delete(u.key)
        }
        unused.push(table)
      }
    }
    return unused
  }
}

function use(x: DbShapes, key: string, table: string): void {
  const u = x.tables.get(table)
  if (u === undefined) {
    x.tables.set(table, { key, users: 1 })
  } else {
    u.users++
  }
}

/**
 * Tables stored inside a shared physical table (DuckDB): the catalog lays super tables of one
 * column shape in one database over one data table and one tag table, each with a `_stid`
 * column naming the super table, and makes `st` and `st$tags` views over them (so the planner's
 * scans read them as before). Writes cannot go through a view: the engine looks the view's
 * physical table and `_stid` up here. The catalog changes a route inside the transaction that
 * changes the views, under the engine's write lock, so no write sees a view and a route that
 * disagree.
 */
export interface SharedRoute {
  /** the physical table in the same schema */
  table: string
  /** the value of its `_stid` column for this view's rows */
  stid: number
}

export class TableRoutes {
  private readonly bySchema = new Map<string, Map<string, SharedRoute>>()

  get(schema: string, table: string): SharedRoute | undefined {
    return this.bySchema.get(schema)?.get(table)
  }

  set(schema: string, table: string, route: SharedRoute): void {
    let m = this.bySchema.get(schema)
    if (m === undefined) {
      m = new Map()
      this.bySchema.set(schema, m)
    }
    m.set(table, route)
  }

  delete(schema: string, table: string): void {
    this.bySchema.get(schema)?.delete(table)
  }

  dropSchema(schema: string): void {
    this.bySchema.delete(schema)
  }

  clear(): void {
    this.bySchema.clear()
  }
}

/**
 * A map of the catalog's super tables or tables (of databases, and per database) that counts every
 * change into Catalog.version, wherever it is made. (A change made in place on an object it holds,
 * a child's tags, is not counted here: setTags counts it itself.)
 */
export class VersionedMap<V> extends Map<string, V> {
  constructor(readonly changed: () => void) {
    super()
  }

  override set(key: string, value: V): this {
    this.changed()
    return super.set(key, value)
  }

  override delete(key: string): boolean {
    this.changed()
    return super.delete(key)
  }

  override clear(): void {
    this.changed()
    super.clear()
  }
}

/** the inner map of `key`, created (versioned like its outer map) when missing */
export function mapOf<V>(m: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = m.get(key)
  if (!inner) {
    inner = m instanceof VersionedMap ? new VersionedMap<V>(m.changed) : new Map<string, V>()
    m.set(key, inner)
  }
  return inner
}

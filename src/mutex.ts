/**
 * A promise-chain mutex: holders go strictly one after another, in the order they asked. A place
 * may be reserved before the work that needs it is ready (`reserve`): line-protocol writes take
 * theirs when their body is read, and their turn once it is parsed, so they reach the engine in
 * the order they arrived.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve()

  /**
   * A place in line now: `turn` resolves once every earlier place is released. Release it exactly
   * once, whatever happens (before its turn too, when the work failed).
   */
  reserve(): { turn: Promise<void>; release: () => void } {
    let release!: () => void
    const mine = new Promise<void>((resolve) => {
      release = resolve
    })
    const turn = this.tail
    this.tail = turn.then(() => mine)
    return { turn, release }
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const { turn, release } = this.reserve()
    await turn
    try {
      return await fn()
    } finally {
      release()
    }
  }
}

/**
 * One Mutex per key (the schemaless core's schema changes take turns per database). A key's
 * mutex is kept only while someone holds or waits for it.
 */
export class KeyedMutex<K> {
  private readonly byKey = new Map<K, { mutex: Mutex; users: number }>()

  async run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    let entry = this.byKey.get(key)
    if (entry === undefined) {
      entry = { mutex: new Mutex(), users: 0 }
      this.byKey.set(key, entry)
    }
    entry.users++
    try {
      return await entry.mutex.run(fn)
    } finally {
      if (--entry.users === 0) {
        this.byKey.delete(key)
      }
    }
  }
}

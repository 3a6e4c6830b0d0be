/**
 * Reused shared memory for request bodies on their way to the parse workers.
 *
 * Every new ArrayBuffer counts as external memory for V8, and past a limit V8 collects garbage
 * because of it. A 5000-line write used to allocate its bytes four times on the main thread
 * (Node's body chunks, @hono/node-server's concatenation and ArrayBuffer copy, the copy posted to
 * a worker); under full ingest the collections V8 ran for "external memory pressure" were the
 * main cause of slow `/-/ping` answers. A body read into a slab of
 * this pool goes to the workers without a copy (a SharedArrayBuffer is shared, not cloned, by
 * postMessage) and the slab serves the next body once every reader let go of it.
 */

/** One body's bytes and who still reads them; the slab returns to its pool with the last release. */
export class BodyLease {
  private refs = 1

  constructor(
    /** the body (a view of the slab when pooled) */
    readonly bytes: Buffer,
    private readonly slab?: SharedArrayBuffer,
    private readonly pool?: BodyPool,
  ) {}

  /** the bytes live in shared memory: readers on other threads see them without a copy */
  get shared(): boolean {
    return this.slab !== undefined
  }

  /** One more reader (a parse worker's job). */
  retain(): void {
    if (this.refs <= 0) {
      throw new Error('body lease retained after its last release')
    }
    this.refs++
  }

  /** A reader is done; nobody may read `bytes` after the last release. */
  release(): void {
    if (this.refs <= 0) {
      throw new Error('body lease released more often than it was retained')
    }
    this.refs--
    if (this.refs === 0 && this.slab !== undefined) {
      this.pool?.put(this.slab)
    }
  }
}

export class BodyPool {
  private readonly idle: SharedArrayBuffer[] = []

  /**
   * @param slabBytes the size of a slab: larger bodies get shared memory of their own, not kept
   * @param maxIdle slabs kept while unused (the rest are left to the garbage collector)
   */
  constructor(
    readonly slabBytes = 2 * 1024 * 1024,
    readonly maxIdle = 4,
  ) {}

  /** A lease on `n` bytes of shared memory, their content undefined. */
  lease(n: number): BodyLease {
    if (n > this.slabBytes) {
      const own = new SharedArrayBuffer(n)
      return new BodyLease(Buffer.from(own, 0, n), own)
    }
    const slab = this.idle.pop() ?? new SharedArrayBuffer(this.slabBytes)
    return new BodyLease(Buffer.from(slab, 0, n), slab, this)
  }

  /** slabs waiting for a body */
  get idleSlabs(): number {
    return this.idle.length
  }

  /** @internal BodyLease.release */
  put(slab: SharedArrayBuffer): void {
    if (this.idle.length < this.maxIdle) {
      this.idle.push(slab)
    }
  }
}

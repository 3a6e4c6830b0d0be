/**
 * @module
 * The Node/V8 flags the adapter is started with (`npm start`, the container's ENTRYPOINT, the
 * benches). They must be on the command line: V8 reads them when it creates the heap and its
 * thread pool, before any of our code runs, and `--initial-old-space-size` is not allowed in
 * NODE_OPTIONS. A test checks that package.json and the Dockerfile carry exactly these.
 *
 * Why each one (measured with `BENCH=ping`: bench/README.md, "Node flags"):
 * - `--v8-pool-size=1`: V8's background threads took time slices from the event loop that answers
 *   `/-/ping`; the adapter's heaps are small, so one helper thread loses little GC parallelism.
 * - `--initial-old-space-size=64`: with ~20 MB live, V8 otherwise ran a full mark-compact every
 *   few hundred ms of ingest; the heap grows by at most that much.
 */
export const NODE_FLAGS: readonly string[] = ['--v8-pool-size=1', '--initial-old-space-size=64']

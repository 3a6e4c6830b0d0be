/**
 * @module
 * The Node/V8 flags the adapter is started with (`npm start`, the container's ENTRYPOINT, the
 * benches). They must be on the command line: V8 reads them when it creates the heap and its
 * thread pool, before any of our code runs, and `--initial-old-space-size` is not allowed in
 * NODE_OPTIONS. A test checks that package.json and the Dockerfile carry exactly these.
 *
 * Why each one, measured with `BENCH=ping npm run bench` on a 2-core machine, alternating runs:
 * - `--v8-pool-size=1`: Node's default of 4 background threads for V8 (concurrent marking,
 *   parallel scavenges, compiles) ran ~1.9 s of CPU per 6 s of full ingest at the main thread's
 *   priority, taking time slices from the event loop that answers `/-/ping`. The adapter's heaps
 *   are small (tens of MB), so one helper thread loses little GC parallelism.
 * - `--initial-old-space-size=64`: with ~20 MB live on the main thread, V8 placed the next
 *   old-generation limit less than one young generation above it and started a full mark-compact
 *   every ~250 ms of ingest (55 in 10 s: ~9 ms of marking steps plus a 2-5 ms pause each). With a
 *   64 MB starting limit, 2 in 10 s; the heap grows by at most that much.
 * Together: /-/ping p99 under ingest 6.8-8.8 ms instead of 8.0-14.8 ms, and 615-812k instead of
 * 474-654k points/s over the same runs.
 */
export const NODE_FLAGS: readonly string[] = ['--v8-pool-size=1', '--initial-old-space-size=64']

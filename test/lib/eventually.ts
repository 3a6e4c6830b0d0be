/** Polls `fn` every 50 ms until it stops throwing (receivers write after a short linger); its value, or its last error after `ms`. */
export async function eventually<T>(fn: () => Promise<T>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    try {
      return await fn()
    } catch (err) {
      if (Date.now() > until) {
        throw err
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

import { describe, expect, it } from 'vitest'
import { isDatabaseInvalidated, isStorageTrouble } from './errors.js'

describe('isStorageTrouble (503, not a client fault or our bug)', () => {
  it('knows DuckDB running out of its memory limit, wrapped or not, and an invalidated database', () => {
    for (const text of [
      'Out of Memory Error: failed to allocate data of size 4.0 KiB (64.2 MiB/64.0 MiB used)',
      'Failed to append: failed to allocate data of size 4.0 KiB (64.2 MiB/64.0 MiB used)',
      'Failed to append: Failed to commit: failed to pin block of size 256.0 KiB (64.1 MiB/64.0 MiB used)',
      'Failed to append: Failed to commit: could not allocate block of size 256.0 KiB (88.9 MiB/89.0 MiB used)',
      'FATAL Error: Failed: database has been invalidated because of a previous fatal error.',
      'IO Error: Could not write file',
    ]) {
      expect(isStorageTrouble(new Error(text)), text).toBe(true)
    }
    expect(isStorageTrouble(new Error('Binder Error: Referenced column "x" not found'))).toBe(false)
    expect(isStorageTrouble(new Error('failed to allocate a name'))).toBe(false)
    expect(isStorageTrouble(new Error('could not allocate a name'))).toBe(false)
  })

  it('isDatabaseInvalidated names only the state a restart cures', () => {
    expect(isDatabaseInvalidated(new Error('FATAL Error: Failed: database has been invalidated because of a previous fatal error.'))).toBe(true)
    expect(isDatabaseInvalidated(new Error('Out of Memory Error: failed to allocate data'))).toBe(false)
  })
})

import { describe, expect, it } from 'vitest'
import { CREDENTIAL_CACHE_MS, CredentialCache } from './credential-cache.js'

describe('CredentialCache', () => {
  it('matches user, password and the stored hash, while in use', () => {
    let now = 0
    const c = new CredentialCache(() => now)
    c.set('u', 'pw', 'hash1')
    expect(c.has('u', 'pw', 'hash1')).toBe(true)
    expect(c.has('u', 'pw2', 'hash1')).toBe(false)
    expect(c.has('v', 'pw', 'hash1')).toBe(false)
    // the password changed (here or on another replica): the entry no longer counts
    expect(c.has('u', 'pw', 'hash2')).toBe(false)
    expect(c.has('u', 'pw', 'hash1')).toBe(false)
    c.set('u', 'pw', 'hash1')
    now += CREDENTIAL_CACHE_MS - 1
    expect(c.has('u', 'pw', 'hash1')).toBe(true)
    now += CREDENTIAL_CACHE_MS - 1
    expect(c.has('u', 'pw', 'hash1')).toBe(true)
    now += CREDENTIAL_CACHE_MS
    expect(c.has('u', 'pw', 'hash1')).toBe(false)
  })

  it('forgets a user, or everything', () => {
    const c = new CredentialCache()
    c.set('u', 'a', 'h')
    c.set('u', 'b', 'h')
    c.set('v', 'a', 'h')
    c.delete('u')
    expect([c.has('u', 'a', 'h'), c.has('u', 'b', 'h'), c.has('v', 'a', 'h')]).toEqual([false, false, true])
    c.clear()
    expect(c.size).toBe(0)
  })

  it('keeps no password in clear', () => {
    const c = new CredentialCache()
    c.set('u', 'secret-password', 'h')
    expect(JSON.stringify([...(c as unknown as { entries: Map<string, unknown> }).entries])).not.toContain('secret-password')
  })
})

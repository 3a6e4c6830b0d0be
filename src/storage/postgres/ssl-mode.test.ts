import { parse } from 'pg-connection-string'
import { describe, expect, it } from 'vitest'
import { libpqSslModes } from './connections.js'

// pg parses the connection string with pg-connection-string: these are the TLS options it gets
const tlsOf = (url: string) => parse(libpqSslModes(url)).ssl

describe('storage.url sslmode (libpq meanings)', () => {
  it('require encrypts without verifying the certificate, as libpq does', () => {
    expect(tlsOf('postgres://u:p@db:5432/x?sslmode=require')).toMatchObject({ rejectUnauthorized: false })
  })

  it('verify-full verifies; disable turns TLS off; no sslmode leaves the URL alone', () => {
    const full = tlsOf('postgres://u:p@db/x?sslmode=verify-full')
    expect(full).toBeTruthy()
    expect((full as { rejectUnauthorized?: boolean }).rejectUnauthorized).not.toBe(false)
    expect(tlsOf('postgres://u:p@db/x?sslmode=disable')).toBe(false)
    expect(libpqSslModes('postgres://u:p@db/x')).toBe('postgres://u:p@db/x')
  })

  it('keeps an explicit uselibpqcompat and the rest of the URL', () => {
    expect(libpqSslModes('postgres://u:p@db/x?sslmode=require&uselibpqcompat=false')).toBe('postgres://u:p@db/x?sslmode=require&uselibpqcompat=false')
    expect(libpqSslModes('postgresql://u:p%40ss@db:6432/x?sslmode=require&application_name=a')).toBe(
      'postgresql://u:p%40ss@db:6432/x?sslmode=require&application_name=a&uselibpqcompat=true',
    )
  })
})

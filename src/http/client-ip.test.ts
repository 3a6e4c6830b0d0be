import { describe, expect, it } from 'vitest'
import { clientIpFrom } from './client-ip.js'

describe('clientIpFrom', () => {
  it.each([
    ['10.0.0.1, 10.0.0.2', '10.0.0.9', '127.0.0.1', '10.0.0.1'],
    [' 10.0.0.1 ', undefined, '127.0.0.1', '10.0.0.1'],
    ['', '10.0.0.9', '127.0.0.1', '10.0.0.9'],
    [undefined, undefined, '::1', '::1'],
    [undefined, undefined, '::ffff:127.0.0.1', '127.0.0.1'],
    [undefined, undefined, '::ffff:abcd', '::ffff:abcd'],
    [undefined, undefined, undefined, ''],
  ])('xff=%j real=%j peer=%j -> %j', (xff, real, peer, expected) => {
    expect(clientIpFrom(xff, real, peer)).toBe(expected)
  })
})

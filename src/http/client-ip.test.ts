import { describe, expect, it } from 'vitest'
import { clientIpFrom, throttleKey } from './client-ip.js'

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

describe('throttleKey', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:0:1:aaaa::1', '2001:db8:0:1::/64'],
    ['2001:0db8:0000:0001:ffff:ffff:ffff:ffff', '2001:db8:0:1::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['not:an::address::', 'not:an::address::'],
    [undefined, ''],
  ])('%j -> %j', (peer, expected) => {
    expect(throttleKey(peer)).toBe(expected)
  })
})

/**
 * @module
 * Client address for logs and metrics, the way the original (gin `ClientIP()`) computes it: first
 * address of `X-Forwarded-For`, else `X-Real-IP`, else the socket peer.
 */

export function clientIpFrom(
  forwardedFor: string | undefined,
  realIp: string | undefined,
  peer: string | undefined,
): string {
  const first = forwardedFor?.split(',')[0]?.trim()
  if (first) {
    return first
  }
  const real = realIp?.trim()
  if (real) {
    return real
  }
  // Dual-stack listeners report IPv4 peers as IPv4-mapped IPv6; log them as plain IPv4.
  return peer?.startsWith('::ffff:') && peer.includes('.') ? peer.slice(7) : (peer ?? '')
}

/**
 * The key a login throttle counts a peer under: an IPv4 address as is, an IPv6 address by its
 * /64 network (one host usually holds a whole /64 and could otherwise rotate through it).
 * Only the socket peer is used: X-Forwarded-For is the client's to write.
 */
export function throttleKey(peer: string | undefined): string {
  const ip = clientIpFrom(undefined, undefined, peer)
  if (!ip.includes(':')) {
    return ip
  }
  const groups = expandIpv6(ip.split('%')[0] ?? '')
  return groups === undefined ? ip : `${groups.slice(0, 4).join(':')}::/64`
}

/** The 8 groups of an IPv6 address (hex, no leading zeros), or undefined when it is not one. */
function expandIpv6(ip: string): string[] | undefined {
  const halves = ip.split('::')
  if (halves.length > 2) {
    return undefined
  }
  const part = (s: string): string[] => (s === '' ? [] : s.split(':'))
  const head = part(halves[0] ?? '')
  const tail = halves.length === 2 ? part(halves[1] ?? '') : []
  // an embedded IPv4 tail (::ffff:1.2.3.4 style) counts as two groups
  const last = tail.length > 0 ? tail : head
  if (last.length > 0 && (last[last.length - 1] ?? '').includes('.')) {
    last.splice(last.length - 1, 1, '0', '0')
  }
  const fill = 8 - head.length - tail.length
  if ((halves.length === 1 && fill !== 0) || fill < 0) {
    return undefined
  }
  const groups = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail]
  if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) {
    return undefined
  }
  return groups.map((g) => parseInt(g, 16).toString(16))
}

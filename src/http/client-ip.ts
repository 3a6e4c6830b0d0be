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

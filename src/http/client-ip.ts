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
  return peer ?? ''
}

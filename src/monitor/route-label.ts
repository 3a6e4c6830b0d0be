import type { Context } from 'hono'
import { matchedRoutes } from 'hono/route'
import { UNMATCHED_ROUTE } from './metrics.js'

/**
 * The template of the route that handles the request (`/rest/sql/:db`), for metric labels and
 * span names: the last matched entry registered as a handler rather than a middleware.
 * Middleware take `(c, next)` (two parameters), handlers take `(c)`; that is also how Hono's own
 * route helper tells them apart.
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c)
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]
    if (route.handler.length < 2) {
      return route.path
    }
  }
  return UNMATCHED_ROUTE
}

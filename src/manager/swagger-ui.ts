/**
 * @module
 * Swagger UI at `/swagger-ui/`, served from the installed package swagger-ui-dist (no CDN:
 * clusters are often air-gapped). Only the files its index page loads are served, read once on
 * first use; the initializer is ours, pointed at the management server's OpenAPI document.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Hono } from 'hono'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
}

/** What index.html loads (and the OAuth2 redirect page the UI links to); nothing else is served. */
const FILES = [
  'index.html', 'index.css', 'swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js',
  'favicon-16x16.png', 'favicon-32x32.png', 'oauth2-redirect.html', 'oauth2-redirect.js',
]

/** The package's folder, found through Node's resolution (whatever node_modules layout). */
export function swaggerUiDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

function initializer(documentUrl: string): string {
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(documentUrl)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    validatorUrl: null
  })
}
`
}

export function createSwaggerUiRoutes(documentUrl: string, dir = swaggerUiDir()): Hono {
  const app = new Hono()
  const cache = new Map<string, Promise<Buffer>>()
  const load = (name: string): Promise<Buffer> => {
    let file = cache.get(name)
    if (file === undefined) {
      file = readFile(join(dir, name))
      // a failed read is tried again next time, not remembered
      file.catch(() => cache.delete(name))
      cache.set(name, file)
    }
    return file
  }
  const script = initializer(documentUrl)

  app.get('/swagger-ui', (c) => c.redirect('/swagger-ui/', 301))
  app.get('/swagger-ui/swagger-initializer.js', (c) => c.body(script, 200, { 'Content-Type': TYPES['.js'] }))
  app.get('/swagger-ui/:file{[^/]*}', async (c) => {
    const name = c.req.param('file') || 'index.html'
    if (!FILES.includes(name)) {
      return c.json({ status: 404, message: `no such file in Swagger UI: ${name}` }, 404)
    }
    const body = await load(name)
    return c.body(new Uint8Array(body), 200, {
      'Content-Type': TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream',
      'Cache-Control': 'public, max-age=3600',
    })
  })
  return app
}

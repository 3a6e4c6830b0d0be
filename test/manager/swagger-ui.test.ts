/**
 * End-to-end: Swagger UI in a real headless browser (Debian's chromium, driven by
 * playwright-core with its executablePath; no browser download). The page loads from the
 * management server alone (every request the page makes is checked to stay on it: no CDN),
 * "Authorize" takes Basic credentials, and "Try it out" / "Execute" on apiV1EventsGet lists
 * the events through the UI.
 */
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needDebianPackages, program } from '../lib/debian-package.js'
import { call, startManaged } from './server.js'

const CHROMIUM = '/usr/bin/chromium'
const need = needDebianPackages('Swagger UI in headless Chromium', [{ pkg: 'chromium', present: program('chromium') }])

let adapter: Awaited<ReturnType<typeof startManaged>>
let browser: Browser

beforeAll(async () => {
  if (need.skip) {
    return
  }
  adapter = await startManaged()
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await adapter?.stop()
})

describe.skipIf(need.skip)('Swagger UI', () => {
  it('authorizes with Basic and lists events through the UI', async () => {
    const base = adapter.manager.url
    const opened = await call(base, 'POST', '/api/v1/alerts', {
      body: { version: '4', alerts: [{ status: 'firing', labels: { alertname: 'FromSwagger', instance: 'ui-test', severity: 'warning' }, annotations: {}, fingerprint: 'swagger-1' }] },
    })
    expect(opened.status).toBe(200)

    const page = await browser.newPage()
    const elsewhere: string[] = []
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) {
        elsewhere.push(r.url())
      }
    })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${base}/swagger-ui/`)
    await page.locator('.info .title').waitFor({ timeout: 20_000 })
    expect(await page.locator('.info .title').textContent()).toContain('1.0.14.1')

    await page.locator('button.btn.authorize').first().click()
    await page.locator('.auth-container input[name="username"]').fill('root')
    await page.locator('.auth-container input[name="password"]').fill('taosdata')
    await page.locator('.auth-container button.btn.modal-btn.auth.authorize').click()
    await page.locator('.auth-container button.btn-done').click()

    const op = page.locator('#operations-EventResourceApi-apiV1EventsGet')
    await op.locator('.opblock-summary').first().click()
    await op.locator('button.try-out__btn').click()
    await op.locator('input[placeholder="elementId"]').fill('ui-test')
    const answered = page.waitForResponse((r) => r.url().startsWith(`${base}/api/v1/events?`) && r.request().method() === 'GET')
    await op.locator('button.execute').click()
    const response = await answered
    expect(response.request().headers().authorization).toBe(`Basic ${Buffer.from('root:taosdata').toString('base64')}`)
    expect(response.status()).toBe(200)
    const body = (await response.json()) as { total: number; items: Array<{ title: string }> }
    expect(body.total).toBe(1)
    expect(body.items[0].title).toBe('FromSwagger')

    // and the UI shows what came back
    const shown = op.locator('.live-responses-table tbody .response-col_status').first()
    await expect.poll(async () => (await shown.textContent())?.trim()).toBe('200')
    expect(await op.locator('.live-responses-table tbody .response-col_description').first().textContent()).toContain('FromSwagger')
    expect(elsewhere).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  }, 90_000)
})

/**
 * @module
 * The node_exporter scraper (`hostexporter.*`): every `hostexporter.gatherDuration` each of
 * `hostexporter.urls` is scraped (hostexporter-http.ts), its Prometheus text or OpenMetrics
 * parsed and mapped (src/ingest/promtext) and written into `hostexporter.db` as
 * `hostexporter.user` through the shared PointWriter.
 *
 * Unlike the original (one loop scraping the URLs in turn, the first failure ending that URL's
 * samples), the URLs are scraped side by side and each on its own: one that fails or hangs
 * delays none of the others. A URL still being scraped when the next tick comes is not scraped
 * again (no pile-up behind a slow exporter). While the memory gate is all-paused a tick scrapes
 * nothing, and the next tick after it scrapes again. Each URL's scrapes are counted on /metrics
 * by result (`db_adapter_hostexporter_scrapes_total{url,result}`).
 */
import type { Counter, Registry } from 'prom-client'
import { Counter as PromCounter } from 'prom-client'
import { scrapeToPointsAsync } from '../ingest/promtext/points.js'
import type { ReceiverDeps, RunningReceiver } from './collagent.js'
import { scrape, scrapeClient, type ScrapeTarget } from './hostexporter-http.js'
import { receiverWriter, ThrottledLog } from './point-writer.js'

export interface ScrapeMetrics {
  /** scrapes per configured URL: ok | failed | paused (tick skipped, memory gate) | busy (the previous one still running) */
  scrapes: Counter<'url' | 'result'>
}

export function createScrapeMetrics(registry: Registry): ScrapeMetrics {
  return {
    scrapes: new PromCounter({
      name: 'db_adapter_hostexporter_scrapes_total',
      help: 'Scrapes of each hostexporter.urls entry, by result: ok, failed (network, status, timeout, size, cut-off body), paused (tick skipped while all-paused), busy (the previous scrape still running)',
      labelNames: ['url', 'result'],
      registers: [registry],
    }),
  }
}

const RECEIVER = 'hostexporter'

export async function startHostexporter(deps: ReceiverDeps & { scrapeMetrics: ScrapeMetrics }): Promise<RunningReceiver> {
  const { config, logger, metrics } = deps
  const c = config.hostexporter
  const client = scrapeClient(c, config.http.maxBodySize)
  // room for a few scrapes of every URL (a node_exporter scrape is 1,000-3,000 points)
  const writer = receiverWriter(RECEIVER, c, deps, Math.max(4, 2 * client.targets.length))
  const log = new ThrottledLog(logger)
  const scrapes = deps.scrapeMetrics.scrapes
  const inFlight = new Map<ScrapeTarget, Promise<void>>()
  const stopping = new AbortController()

  const scrapeOne = async (t: ScrapeTarget): Promise<void> => {
    try {
      const body = await scrape(client, t, stopping.signal)
      const now = BigInt(Date.now()) * 1_000_000n
      const m = await scrapeToPointsAsync(body.text, body.format, t.label, now)
      if (!m.parse.eof) {
        throw new Error('OpenMetrics answer without "# EOF": cut off, nothing of it written')
      }
      const bad = m.parse.errorCount + m.rejected.length
      metrics.packets.inc({ receiver: RECEIVER, result: bad > 0 ? 'malformed' : 'accepted' })
      if (bad > 0) {
        metrics.points.inc({ receiver: RECEIVER, result: 'rejected' }, bad)
        const first = m.parse.errors[0] ?? m.rejected[0]
        log.error(`malformed:${t.label}`, { receiver: RECEIVER, url: t.label, bad, line: first?.line, error: first?.message }, `${RECEIVER}: ${bad} bad line(s) in the answer of ${t.label}`)
      }
      writer.add(m.points)
      scrapes.inc({ url: t.label, result: 'ok' })
    } catch (err) {
      if (stopping.signal.aborted) {
        return
      }
      scrapes.inc({ url: t.label, result: 'failed' })
      log.error(`scrape:${t.label}`, { receiver: RECEIVER, url: t.label, err: (err as Error).message }, `${RECEIVER}: scraping ${t.label} failed: ${(err as Error).message}`)
    }
  }

  const tick = (): void => {
    if (deps.allPaused()) {
      for (const t of client.targets) {
        scrapes.inc({ url: t.label, result: 'paused' })
      }
      metrics.packets.inc({ receiver: RECEIVER, result: 'dropped' }, client.targets.length)
      log.error('paused', { receiver: RECEIVER }, `${RECEIVER}: memory above pauseAllMemoryThreshold, scrapes skipped until it falls`)
      return
    }
    for (const t of client.targets) {
      if (inFlight.has(t)) {
        scrapes.inc({ url: t.label, result: 'busy' })
        log.error(`busy:${t.label}`, { receiver: RECEIVER, url: t.label }, `${RECEIVER}: ${t.label} is still being scraped; this tick skips it (responseTimeout longer than gatherDuration?)`)
        continue
      }
      inFlight.set(
        t,
        scrapeOne(t).finally(() => inFlight.delete(t)),
      )
    }
  }

  // the first scrape at once, then every gatherDuration
  tick()
  const timer = setInterval(tick, c.gatherDuration)
  logger.info({ receiver: RECEIVER, urls: client.targets.map((t) => t.label), every: c.gatherDuration, db: c.db }, `node_exporter scraper: ${client.targets.length} URL(s) every ${c.gatherDuration} ms`)
  return {
    // a scraper listens on nothing
    port: 0,
    async stop() {
      clearInterval(timer)
      stopping.abort()
      await Promise.all(inFlight.values())
      await writer.close()
    },
  }
}

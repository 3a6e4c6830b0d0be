import { Worker } from 'node:worker_threads'

/**
 * Starts a worker thread running `module` (a `.js` URL when built, a `.ts` URL under tsx in
 * development and tests). Under tsx the worker registers tsx itself first, because Node 20 does
 * not pass the parent's `--import` loader hooks on to worker threads. `source`, when given, is
 * evaluated instead (tests: a worker that cannot start).
 */
export function startModuleWorker(module: URL, name: string, source?: string): Worker {
  if (source !== undefined) {
    return new Worker(source, { eval: true, name })
  }
  if (!module.pathname.endsWith('.ts')) {
    return new Worker(module, { name })
  }
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  const entry = JSON.stringify(module.href)
  return new Worker(`import(${api}).then((tsx) => { tsx.register(); return import(${entry}) })`, { eval: true, name })
}

/** The URL of a module beside `base` (an `import.meta.url`), with the extension `base` has: `.ts` under tsx, `.js` when built. */
export function siblingModule(base: string, stem: string): URL {
  return new URL(`./${stem}${base.endsWith('.ts') ? '.ts' : '.js'}`, base)
}

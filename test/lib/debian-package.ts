/**
 * Tests that drive a program from a Debian package (prometheus, collectd, python3-influxdb, Go,
 * curl...) ask for it here when their file loads:
 *
 *   const need = needDebianPackages('python3-influxdb client', [{ pkg: 'python3-influxdb', present: pythonModule('influxdb') }])
 *   describe.skipIf(need.skip)(...)
 *
 * What is missing is installed first when it can be (root with apt-get: `apt-get install -y
 * --no-install-recommends`, `apt-get update` and again if that fails), once per package per run:
 * vitest's workers take a lock folder in turn and remember a failed install, so apt never runs
 * twice for a package. When it cannot be installed the test is skipped with ONE line naming the
 * package; with DB_ADAPTER_TEST_REQUIRE_PACKAGES=1 (.ci/run sets it) that line is an error, so CI
 * never skips silently. To try the skip path on a machine that has everything:
 * DB_ADAPTER_TEST_NO_APT=1 acts as if apt were not there, DB_ADAPTER_TEST_HIDE_PACKAGES=a,b as if
 * those packages were missing. DB_ADAPTER_TEST_APT_TIMEOUT bounds each apt-get command (seconds,
 * default 600).
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'

export interface Need {
  /** the Debian package that brings it (or, with apt false, the program's own name) */
  pkg: string
  /** true when what the test uses is there: a program on the PATH, a file, an importable module */
  present: () => boolean
  /** false for something Debian 12 does not ship usably (kubectl): never installed, only named */
  apt?: boolean
  /** said after the name in the skip line, e.g. where to get it */
  hint?: string
}

export interface NeedResult {
  /** true: skip the tests that need it (already said on one line) */
  skip: boolean
  /** the packages still missing after any install */
  missing: string[]
}

/** Missing packages fail instead of skipping (set by .ci/run). */
export const requirePackages = (): boolean => process.env.DB_ADAPTER_TEST_REQUIRE_PACKAGES === '1'

/** `name` is an executable file in one of the PATH's folders (what `command -v` finds). */
export function onPath(name: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') {
      continue
    }
    try {
      accessSync(join(dir, name), constants.X_OK)
      return true
    } catch {
      // not in this folder
    }
  }
  return false
}

export const program =
  (name: string) =>
  (): boolean =>
    onPath(name)
export const file =
  (path: string) =>
  (): boolean =>
    existsSync(path)
/** Debian's python (the one python3-* packages install into) imports `mod` */
export const pythonModule =
  (mod: string) =>
  (): boolean =>
    spawnSync('/usr/bin/python3', ['-c', `import ${mod}`], { stdio: 'ignore' }).status === 0

/**
 * Skips (one line) or, under DB_ADAPTER_TEST_REQUIRE_PACKAGES=1, throws when `missing` says what
 * a test needs and lacks; returns true to skip. For needs that are not packages (root, a cgroup).
 */
export function skipUnless(what: string, missing: string | undefined): boolean {
  if (missing === undefined) {
    return false
  }
  if (requirePackages()) {
    throw new Error(`${what}: ${missing} (DB_ADAPTER_TEST_REQUIRE_PACKAGES=1: not skipping)`)
  }
  console.warn(`skipped: ${what}: ${missing}`)
  return true
}

/** Installs what is missing when it can; says what is still missing and whether to skip. */
export function needDebianPackages(what: string, needs: Need[]): NeedResult {
  const hidden = new Set((process.env.DB_ADAPTER_TEST_HIDE_PACKAGES ?? '').split(',').filter(Boolean))
  const absent = (n: Need): boolean => hidden.has(n.pkg) || !n.present()
  let missing = needs.filter(absent)
  const installable = missing.filter((n) => n.apt !== false)
  let failure = ''
  if (installable.length > 0) {
    const why = cannotInstall()
    if (why !== undefined) {
      failure = why
    } else {
      // hidden ones are there: only pretend they are not
      failure = installOnce(installable.filter((n) => !hidden.has(n.pkg)))
      missing = needs.filter(absent)
    }
  }
  if (missing.length === 0) {
    return { skip: false, missing: [] }
  }
  const debs = missing.filter((n) => n.apt !== false).map((n) => n.pkg)
  const others = missing.filter((n) => n.apt === false)
  const parts: string[] = []
  if (debs.length > 0) {
    const how = failure === '' ? '' : `; ${failure}`
    parts.push(`needs Debian package${debs.length > 1 ? 's' : ''} ${debs.join(' ')} (run as root or apt-get install ${debs.join(' ')}${how})`)
  }
  for (const n of others) {
    parts.push(`needs ${n.pkg}${n.hint ? ` (${n.hint})` : ''}`)
  }
  return { skip: skipUnless(what, parts.join('; ')), missing: missing.map((n) => n.pkg) }
}

/** Why apt cannot be used here, or undefined when it can. */
function cannotInstall(): string | undefined {
  if (process.env.DB_ADAPTER_TEST_NO_APT === '1') {
    return 'DB_ADAPTER_TEST_NO_APT=1'
  }
  if (process.getuid?.() !== 0) {
    return 'not root'
  }
  if (!onPath('apt-get')) {
    return 'no apt-get'
  }
  return undefined
}

/** Per run: the globalSetup's TMPDIR is one folder per vitest run, shared by its workers. */
const stateDir = (): string => join(tmpdir(), 'debian-packages')

/** apt-get install under the run's lock; '' on success, else why it failed (one line). */
function installOnce(needs: Need[]): string {
  const pkgs = needs.map((n) => n.pkg)
  const dir = stateDir()
  mkdirSync(dir, { recursive: true })
  const release = lock(join(dir, 'lock'))
  try {
    // another worker may have installed them (or failed to) while this one waited
    const failedBefore = pkgs.map((p) => join(dir, `${p}.failed`)).filter((f) => existsSync(f))
    if (failedBefore.length > 0) {
      return readFileSync(failedBefore[0], 'utf8')
    }
    const todo = needs.filter((n) => !n.present()).map((n) => n.pkg)
    if (todo.length === 0) {
      return ''
    }
    console.warn(`installing Debian package${todo.length > 1 ? 's' : ''} ${todo.join(' ')} (apt-get, once per run)`)
    let out = aptGet(['install', '-y', '--no-install-recommends', ...todo])
    if (out !== '') {
      // a fresh machine's package lists may be missing or stale
      aptGet(['update'])
      out = aptGet(['install', '-y', '--no-install-recommends', ...todo])
    }
    if (out !== '') {
      for (const p of todo) {
        writeFileSync(join(dir, `${p}.failed`), out)
      }
    }
    return out
  } finally {
    release()
  }
}

/** One apt-get command, bounded in time; '' on success, else its last error line. */
function aptGet(args: string[]): string {
  const seconds = Number(process.env.DB_ADAPTER_TEST_APT_TIMEOUT ?? 600)
  const r = spawnSync('apt-get', ['-q', '-o', `DPkg::Lock::Timeout=${seconds}`, ...args], {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: seconds * 1000,
    maxBuffer: 64 * 1024 * 1024,
  })
  if (r.status === 0) {
    return ''
  }
  if (r.error !== undefined) {
    return `apt-get ${args[0]}: ${r.error.message}`
  }
  const last = `${r.stderr}\n${r.stdout}`.split('\n').filter((l) => /^E:|error/i.test(l)).pop()
  return `apt-get ${args[0]} exited ${r.status}${last ? `: ${last.trim()}` : ''}`
}

/** A lock folder (mkdir is atomic) holding its owner's pid; a dead owner's lock is taken over. */
function lock(path: string): () => void {
  const wait = new Int32Array(new SharedArrayBuffer(4))
  const deadline = Date.now() + 3 * 1000 * Number(process.env.DB_ADAPTER_TEST_APT_TIMEOUT ?? 600)
  for (;;) {
    try {
      mkdirSync(path)
      writeFileSync(join(path, 'pid'), String(process.pid))
      return () => rmSync(path, { recursive: true, force: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw err
      }
    }
    if (!ownerAlive(path)) {
      rmSync(path, { recursive: true, force: true })
      continue
    }
    if (Date.now() > deadline) {
      throw new Error(`waited too long for ${path} (held by another test worker installing packages)`)
    }
    Atomics.wait(wait, 0, 0, 250)
  }
}

function ownerAlive(path: string): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(join(path, 'pid'), 'utf8'))
  } catch {
    // the owner has made the folder but not yet written its pid (or died just then)
    const made = statSync(path, { throwIfNoEntry: false })
    return made !== undefined && Date.now() - made.mtimeMs < 10_000
  }
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

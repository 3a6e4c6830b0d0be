import { checkPassword } from './passwords.js'

/**
 * `--auth.rootPassword` at start. The root user is created with it when the catalog has none.
 * When the operator gave the flag (command line, environment, TOML or .env) and root's stored
 * password differs, the stored one is replaced: the flag, and the chart's Secret behind it, are
 * the source of truth, so the collectd and monitor logins and the helm test read from the same
 * Secret keep working. When the flag was left at its default, the stored password is kept, so an
 * `ALTER USER root PASS` survives restarts of a plain `npm start`.
 */
export interface RootPasswordOptions {
  rootPassword: string
  /** the flag was given (default false: only used to create root) */
  rootPasswordGiven?: boolean
  /** told once the stored password was replaced (to log it; never the password) */
  onRootPasswordApplied?: () => void
}

/** true when the given flag should replace root's stored scrypt hash */
export async function rootPasswordDiffers(opts: RootPasswordOptions, storedHash: string): Promise<boolean> {
  if (opts.rootPasswordGiven !== true) {
    return false
  }
  return !(await checkPassword(opts.rootPassword, storedHash))
}

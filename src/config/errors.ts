/** A configuration problem the user must fix; the process exits with code 2 (as pflag did). */
export class ConfigError extends Error {
  readonly exitCode = 2

  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

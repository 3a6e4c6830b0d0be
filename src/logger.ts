import type { Logger as PinoLogger } from 'pino'

/** Structured logger (pino). Created once in the lifecycle from the log.* settings. */
export type Logger = PinoLogger

import { TD, TdError } from '../../td-error.js'
import { parseTimestampString, todayTicks } from '../time.js'
import type { Precision } from '../../storage/td-types.js'
import type { Expr } from './ast.js'
import { durationToTicks } from './window.js'

/** The statement's clock: NOW in ticks of the source's precision. */
interface PlanClock {
  precision: Precision
  now: bigint
}

/**
 * Evaluates a constant timestamp expression at plan time: NOW/TODAY, integers (ticks), datetime
 * strings, durations and +/- of those. Undefined when the expression is not such a constant.
 */
export function timeConst(e: Expr, ctx: PlanClock): bigint | undefined {
  switch (e.kind) {
    case 'num':
      return e.isFloat ? undefined : BigInt(e.text)
    case 'str':
      return parseTimestampOrFail(e.value, ctx.precision)
    case 'duration':
      return durationToTicks(e.duration, ctx.precision)
    case 'call':
      if (e.args.length === 0 && e.name === 'now') {
        return ctx.now
      }
      if (e.args.length === 0 && e.name === 'today') {
        return todayTicks(ctx.precision, Number(ctx.now / ticksPerMs(ctx.precision)))
      }
      return undefined
    case 'binary': {
      if (e.op !== '+' && e.op !== '-') {
        return undefined
      }
      const a = timeConst(e.left, ctx)
      const b = e.right.kind === 'str' ? undefined : timeConst(e.right, ctx)
      if (a === undefined || b === undefined) {
        return undefined
      }
      return e.op === '+' ? a + b : a - b
    }
    default:
      return undefined
  }
}

export function ticksPerMs(p: Precision): bigint {
  return p === 'ms' ? 1n : p === 'us' ? 1000n : 1_000_000n
}

function parseTimestampOrFail(s: string, precision: Precision): bigint {
  try {
    return parseTimestampString(s, precision)
  } catch {
    throw new TdError(TD.PAR_INCORRECT_TIMESTAMP_VAL, `Incorrect TIMESTAMP value: ${s}`)
  }
}

/** [lo, hi] (inclusive ticks) of the primary timestamp from top-level AND conditions */
export function timeRange(where: Expr, ctx: PlanClock, ts: string): { lo?: bigint; hi?: bigint } {
  const r: { lo?: bigint; hi?: bigint } = {}
  const isTs = (e: Expr): boolean => e.kind === 'col' && (e.name === ts || e.name === '_rowts' || e.name === '_c0')
  const lower = (v: bigint): void => {
    r.lo = r.lo === undefined || v > r.lo ? v : r.lo
  }
  const upper = (v: bigint): void => {
    r.hi = r.hi === undefined || v < r.hi ? v : r.hi
  }
  const walk = (e: Expr): void => {
    if (e.kind === 'binary' && e.op === 'AND') {
      walk(e.left)
      walk(e.right)
      return
    }
    if (e.kind === 'between' && !e.not && isTs(e.expr)) {
      const lo = timeConst(e.low, ctx)
      const hi = timeConst(e.high, ctx)
      if (lo !== undefined) {
        lower(lo)
      }
      if (hi !== undefined) {
        upper(hi)
      }
      return
    }
    if (e.kind === 'binary' && ['<', '<=', '>', '>=', '='].includes(e.op)) {
      let op = e.op
      let other: Expr
      if (isTs(e.left)) {
        other = e.right
      } else if (isTs(e.right)) {
        other = e.left
        op = op === '<' ? '>' : op === '>' ? '<' : op === '<=' ? '>=' : op === '>=' ? '<=' : op
      } else {
        return
      }
      const v = timeConst(other, ctx)
      if (v === undefined) {
        return
      }
      if (op === '>=' || op === '=') {
        lower(v)
      }
      if (op === '>') {
        lower(v + 1n)
      }
      if (op === '<=' || op === '=') {
        upper(v)
      }
      if (op === '<') {
        upper(v - 1n)
      }
    }
  }
  walk(where)
  return r
}

export function isTimeCall(e: Expr): boolean {
  return e.kind === 'call' && (e.name === 'now' || e.name === 'today')
}

/** `now - 1h`, `'2022-01-01' + 1d`: a timestamp constant, folded at plan time */
export function timeConstIfTimestamp(e: Expr & { kind: 'binary' }, ctx: PlanClock): bigint | undefined {
  const leftIsTime = isTimeCall(e.left) || e.left.kind === 'str' || (e.left.kind === 'binary' && timeConstIfTimestamp(e.left, ctx) !== undefined)
  if (!leftIsTime || e.right.kind !== 'duration') {
    return undefined
  }
  return timeConst(e, ctx)
}

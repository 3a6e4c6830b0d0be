import { TD, TdError } from '../../td-error.js'
import type { Expr } from './ast.js'
import type { Compiled, CompileCtx } from './compile-context.js'
import { isNumeric, isString } from './type-info.js'

/** A scalar call as scalar-call.ts and scalar-time.ts see it: compiled args beside their AST. */
export interface ScalarCall {
  name: string
  args: Compiled[]
  raw: Expr[]
  ctx: CompileCtx
}

export function paraType(): TdError {
  return new TdError(TD.FUNC_FUNTION_PARA_TYPE, 'Invalid function para type')
}

/** TDengine's text for a bad argument value of function `fn` */
export function paraValue(fn: string): TdError {
  return new TdError(TD.FUNC_FUNTION_PARA_VALUE, `Invalid parameter value : ${fn}`)
}

/** an argument that must be numeric (or NULL) */
export function numericArg(c: ScalarCall, i: number): Compiled {
  const a = c.args[i]
  if (!isNumeric(a.type.type) && a.type.type !== 'NULL') {
    throw paraType()
  }
  return a
}

/** an argument that must be a string (or NULL) */
export function stringArg(c: ScalarCall, i: number): Compiled {
  const a = c.args[i]
  if (!isString(a.type.type) && a.type.type !== 'NULL') {
    throw paraType()
  }
  return a
}

/** the integer value of a constant argument (`-1`, `3`), or undefined */
export function constInt(e: Expr | undefined): number | undefined {
  if (e?.kind === 'num' && !e.isFloat) {
    return Number(e.text)
  }
  return undefined
}

/** SQL spelling helpers over the statement's dialect */
export function sqlOf(ctx: CompileCtx): {
  dbl: (x: string) => string
  big: (x: string) => string
  text: (x: string) => string
  str: (v: string) => string
} {
  const p = ctx.sql
  return {
    dbl: (x) => `CAST(${x} AS ${p.physType('DOUBLE')})`,
    big: (x) => `CAST(${x} AS ${p.physType('BIGINT')})`,
    text: (x) => `CAST(${x} AS ${p.physType('VARCHAR')})`,
    str: (v) => p.dialect.quoteString(v),
  }
}

/**
 * DOUBLE + - * with C's IEEE results on PostgreSQL: its float8 operators fail the query on an
 * overflow ("value out of range: overflow") or a product that underflows to zero, where C (so
 * TDengine and DuckDB) gives +-inf and +-0. Three SQL functions in the catalog schema, created
 * at startup (setupSql), decide those cases first and otherwise apply the operator. They are
 * plain SQL functions, so the planner inlines them over simple arguments.
 */

const F8 = 'double precision'
/** half of DBL_MAX: |a/2 + b/2| beyond it <=> a + b rounds to +-inf (halving is exact) */
const HALF_MAX = `(CAST('1.7976931348623157e308' AS ${F8}) / 2)`
/** 2^-512: both factors scaled by it multiply to (ab)·2^-1024, which is >= 1 <=> ab rounds to +-inf */
const SCALE = `power(CAST(2 AS ${F8}), -512)`
const INF = `CAST('Infinity' AS ${F8})`
/** ln(2^-1075) with a margin: a product below it rounds to 0 (the margin keeps the operator's check away) */
const LN_UNDERFLOW = -745.13321910194

function fn(schema: string, name: string): string {
  return `${schema}.${name}`
}

/** the CREATE statements, idempotent, for the catalog schema `schema` (already quoted) */
export function floatArithSetup(schema: string): string[] {
  const add = `CREATE OR REPLACE FUNCTION ${fn(schema, 'td_fadd')}(a ${F8}, b ${F8}) RETURNS ${F8} LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN abs(a / 2 + b / 2) > ${HALF_MAX} THEN sign(a / 2 + b / 2) * ${INF} ELSE a + b END $$`
  // CASE (not AND) orders the tests: a scaled tiny factor would underflow, ln(0) fails
  const mul = `CREATE OR REPLACE FUNCTION ${fn(schema, 'td_fmul')}(a ${F8}, b ${F8}) RETURNS ${F8} LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
      WHEN abs(a) > 1 AND abs(b) > 1 THEN
        CASE WHEN (abs(a) * ${SCALE}) * (abs(b) * ${SCALE}) >= 1 THEN sign(a) * sign(b) * ${INF} ELSE a * b END
      WHEN abs(a) < 1 AND abs(b) < 1 AND a <> 0 AND b <> 0 THEN
        CASE WHEN ln(abs(a)) + ln(abs(b)) < ${LN_UNDERFLOW} THEN sign(a) * sign(b) * CAST(0 AS ${F8}) ELSE a * b END
      ELSE a * b END $$`
  return [add, mul]
}

/** `a op b` over DOUBLE operands through the functions above */
export function floatArith(schema: string, op: '+' | '-' | '*', a: string, b: string): string {
  if (op === '*') {
    return `${fn(schema, 'td_fmul')}(${a}, ${b})`
  }
  return `${fn(schema, 'td_fadd')}(${a}, ${op === '-' ? `-(${b})` : b})`
}

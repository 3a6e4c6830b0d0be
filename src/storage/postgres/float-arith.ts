/**
 * DOUBLE + - * / with C's IEEE results on PostgreSQL: its float8 operators fail the query on an
 * overflow ("value out of range: overflow") or a product or quotient that underflows to zero,
 * where C (so TDengine and DuckDB) gives +-inf and +-0. Functions in the catalog schema, created at startup
 * (Dialect.setupSql), decide those cases first and otherwise apply the operator.
 *
 * Each comes twice: a SQL function, which the planner inlines when its arguments are cheap
 * (columns, constants: about +25% over the bare operator), and a PL/pgSQL one for computed
 * arguments, where PostgreSQL would not inline the SQL one (it names each argument several
 * times) and would run it as a SQL-function call (measured: ~1.2 us a call against ~0.25 us).
 */

const F8 = 'double precision'
/** half of DBL_MAX: |a/2 + b/2| beyond it <=> a + b rounds to +-inf (halving is exact) */
const HALF_MAX = `(CAST('1.7976931348623157e308' AS ${F8}) / 2)`
/** 2^-512: both factors scaled by it multiply to (ab)·2^-1024, which is >= 1 <=> ab rounds to +-inf */
const SCALE = `power(CAST(2 AS ${F8}), -512)`
const INF = `CAST('Infinity' AS ${F8})`
/** ln(2^-1075) with a margin: a product below it rounds to 0 (the margin keeps the operator's check away) */
const LN_UNDERFLOW = -745.13321910194

const ADD_SUM = `a / 2 + b / 2`
const ADD_OVERFLOWS = `abs(${ADD_SUM}) > ${HALF_MAX}`
const ADD_INF = `sign(${ADD_SUM}) * ${INF}`
const MUL_OVERFLOWS = `(abs(a) * ${SCALE}) * (abs(b) * ${SCALE}) >= 1`
const MUL_UNDERFLOWS = `ln(abs(a)) + ln(abs(b)) < ${LN_UNDERFLOW}`
const UP = `power(CAST(2 AS ${F8}), 512)`
/**
 * |a / b| >= 2^1024 (so +-inf), for |b| < 1, in exact power-of-two scalings that neither
 * overflow nor underflow: |a|·2^-512 >= |b|·2^512 when |a| >= 1, |a|·2^512 >= |b|·2^1024 below
 */
const DIV_OVERFLOWS = `(CASE WHEN abs(a) >= 1 THEN abs(a) * ${SCALE} >= abs(b) * ${UP} ELSE abs(a) * ${UP} >= (abs(b) * ${UP}) * ${UP} END)`
const DIV_UNDERFLOWS = `ln(abs(a)) - ln(abs(b)) < ${LN_UNDERFLOW}`

function create(schema: string, name: string, language: 'sql' | 'plpgsql', body: string): string {
  return `CREATE OR REPLACE FUNCTION ${schema}.${name}(a ${F8}, b ${F8}) RETURNS ${F8} LANGUAGE ${language} IMMUTABLE PARALLEL SAFE AS $$ ${body} $$`
}

/** the CREATE statements, idempotent, for the catalog schema `schema` (already quoted) */
export function floatArithSetup(schema: string): string[] {
  // CASE / IF order the tests: a scaled tiny factor would underflow, ln(0) fails
  return [
    create(schema, 'td_fadd', 'sql', `SELECT CASE WHEN ${ADD_OVERFLOWS} THEN ${ADD_INF} ELSE a + b END`),
    create(
      schema,
      'td_fmul',
      'sql',
      `SELECT CASE
        WHEN abs(a) > 1 AND abs(b) > 1 THEN CASE WHEN ${MUL_OVERFLOWS} THEN sign(a) * sign(b) * ${INF} ELSE a * b END
        WHEN abs(a) < 1 AND abs(b) < 1 AND a <> 0 AND b <> 0 THEN
          CASE WHEN ${MUL_UNDERFLOWS} THEN sign(a) * sign(b) * CAST(0 AS ${F8}) ELSE a * b END
        ELSE a * b END`,
    ),
    create(
      schema,
      'td_fdiv',
      'sql',
      `SELECT CASE
        WHEN b = 0 THEN NULL
        WHEN abs(b) < 1 AND a <> 0 THEN CASE WHEN ${DIV_OVERFLOWS} THEN sign(a) * sign(b) * ${INF} ELSE a / b END
        WHEN abs(b) > 1 AND abs(a) < 1 AND a <> 0 THEN
          CASE WHEN ${DIV_UNDERFLOWS} THEN sign(a) * sign(b) * CAST(0 AS ${F8}) ELSE a / b END
        ELSE a / b END`,
    ),
    create(schema, 'td_fadd_p', 'plpgsql', `BEGIN IF ${ADD_OVERFLOWS} THEN RETURN ${ADD_INF}; END IF; RETURN a + b; END`),
    create(
      schema,
      'td_fmul_p',
      'plpgsql',
      `BEGIN
        IF abs(a) > 1 AND abs(b) > 1 THEN
          IF ${MUL_OVERFLOWS} THEN RETURN sign(a) * sign(b) * ${INF}; END IF;
        ELSIF abs(a) < 1 AND abs(b) < 1 AND a <> 0 AND b <> 0 THEN
          IF ${MUL_UNDERFLOWS} THEN RETURN sign(a) * sign(b) * CAST(0 AS ${F8}); END IF;
        END IF;
        RETURN a * b;
      END`,
    ),
    create(
      schema,
      'td_fdiv_p',
      'plpgsql',
      `BEGIN
        IF b = 0 THEN RETURN NULL; END IF;
        IF abs(b) < 1 AND a <> 0 THEN
          IF ${DIV_OVERFLOWS} THEN RETURN sign(a) * sign(b) * ${INF}; END IF;
        ELSIF abs(b) > 1 AND abs(a) < 1 AND a <> 0 THEN
          IF ${DIV_UNDERFLOWS} THEN RETURN sign(a) * sign(b) * CAST(0 AS ${F8}); END IF;
        END IF;
        RETURN a / b;
      END`,
    ),
  ]
}

/** a column or a constant */
const CHEAP_CORE = /^(("[^"]*"|[A-Za-z_]\w*)(\.("[^"]*"|[A-Za-z_]\w*))*|-?[\d.]+(e[+-]?\d+)?|'[^']*'|NULL)$/i
const CAST_WRAPPER = /^CAST\((.*) AS [A-Z][A-Z ]*(\(\d+\))?\)$/i

/** a column, a constant, or casts of one: cheap enough for PostgreSQL to inline the SQL function over */
export function isCheap(sql: string): boolean {
  let core = sql
  for (let m = CAST_WRAPPER.exec(core); m !== null; m = CAST_WRAPPER.exec(core)) {
    core = m[1]
  }
  return CHEAP_CORE.test(core)
}

const NAMES = { '+': 'td_fadd', '-': 'td_fadd', '*': 'td_fmul', '/': 'td_fdiv' }

/** `a op b` over DOUBLE operands through the functions above (`/` by zero is NULL, as TDengine gives it) */
export function floatArith(schema: string, op: '+' | '-' | '*' | '/', a: string, b: string): string {
  const y = op === '-' ? `-(${b})` : b
  const suffix = isCheap(a) && isCheap(b) ? '' : '_p'
  return `${schema}.${NAMES[op]}${suffix}(${a}, ${y})`
}

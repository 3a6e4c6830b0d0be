/**
 * The one table from backend errors to TDengine's: a statement the planner let through can still
 * fail in DuckDB or PostgreSQL on a value (a bad conversion, an overflow, a function domain).
 * The client gets TDengine's code and words for the class of failure, never the backend's text
 * (kept as the cause for the log). Storage trouble passes through untouched (503 upstream).
 */
import { isStorageTrouble } from '../../storage/errors.js'
import { TD, TdError } from '../../td-error.js'

interface Mapping {
  code: number
  desc: string
  /** DuckDB error class prefixes of the message */
  duckdb: RegExp
  /** PostgreSQL SQLSTATE codes */
  postgres: ReadonlySet<string>
}

const BACKEND_ERRORS: Mapping[] = [
  {
    code: TD.PAR_REGULAR_EXPRESSION_ERROR,
    desc: 'Syntax error in regular expression',
    // RE2's compile errors (DuckDB's regexp_matches behind MATCH / NMATCH)
    duckdb: /^Invalid Input Error: (missing [)\]]|unexpected \)|bad (repetition|character class|UTF-8)|invalid (escape|character class|named capture|nested repetition|perl operator|repetition size|UTF-8)|trailing \\|no argument for repetition|pattern too large)/i,
    // invalid_regular_expression
    postgres: new Set(['2201B']),
  },
  {
    code: TD.SCALAR_CONVERT_ERROR,
    desc: 'Cannot convert to specific type',
    duckdb: /^(Conversion Error|Invalid Input Error): (?!.*(division by zero|out of range|overflow))/i,
    // invalid_text_representation, invalid_datetime_format, datetime_field_overflow,
    // invalid_character_value_for_cast, character_not_in_repertoire, untranslatable_character
    postgres: new Set(['22P02', '22007', '22008', '22018', '22021', '22P05', '22025', '2200B']),
  },
  {
    code: TD.TSC_VALUE_OUT_OF_RANGE,
    desc: 'Value out of range',
    duckdb: /^(Out of Range Error|Conversion Error|Invalid Input Error): .*(out of range|overflow)/i,
    // numeric_value_out_of_range, interval_field_overflow
    postgres: new Set(['22003', '22015']),
  },
  {
    code: TD.FUNC_FUNTION_PARA_VALUE,
    desc: 'Invalid function para value',
    duckdb: /division by zero|^Out of Range Error:/i,
    // division_by_zero, invalid_argument_for_logarithm / power_function, invalid_parameter_value,
    // array_subscript_error, null_value_not_allowed
    postgres: new Set(['22012', '2201E', '2201F', '22023', '2202E', '22004', '22000']),
  },
  {
    code: TD.PAR_VALUE_TOO_LONG,
    desc: 'Value too long for column/tag',
    duckdb: /^Out of Memory Error: .*string/i,
    // string_data_right_truncation, program_limit_exceeded
    postgres: new Set(['22001', '54000']),
  },
  {
    code: TD.FUNC_FUNTION_PARA_TYPE,
    desc: 'Invalid function para type',
    duckdb: /^Binder Error: (No function matches|Cannot (mix|compare)|.*type)/i,
    // undefined_function, datatype_mismatch, cannot_coerce, ambiguous_function, indeterminate_datatype
    postgres: new Set(['42883', '42804', '42846', '42725', '42P18']),
  },
]

/** `err` of the backend as the TdError a client gets (see the table above). */
export function backendError(err: unknown): TdError {
  if (err instanceof TdError) {
    return err
  }
  if (isStorageTrouble(err)) {
    // the database is down, out of memory or in a conflict: the adapter's generic failure, with
    // the cause kept (a StorageUnavailableError behind it answers 503 upstream, error-table.ts)
    return new TdError(TD.GENERIC, 'Query failed: storage error, retry later', { cause: err })
  }
  const message = err instanceof Error ? err.message : String(err)
  const sqlState = (err as { code?: unknown } | null)?.code
  for (const m of BACKEND_ERRORS) {
    if ((typeof sqlState === 'string' && m.postgres.has(sqlState)) || m.duckdb.test(message)) {
      return new TdError(m.code, m.desc, { cause: err })
    }
  }
  // anything else: TDengine's words for an internal failure; the backend's text stays in the
  // cause, which rest/sql-handler.ts logs at warn with the request id
  return new TdError(TD.TSC_INTERNAL_ERROR, 'Internal error', { cause: err })
}

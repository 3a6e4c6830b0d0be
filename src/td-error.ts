/**
 * A database error in TDengine's terms: `code` is the decimal value clients see in the REST body
 * (the low 16 bits of the TDengine code), `desc` its text. Texts follow TDengine verbatim because
 * connectors match on substrings such as `Database not exist` or `syntax error`.
 */
export class TdError extends Error {
  readonly code: number
  readonly desc: string

  constructor(code: number, desc: string, options?: { cause?: unknown }) {
    super(desc, options)
    this.name = 'TdError'
    this.code = code
    this.desc = desc
  }
}

/** TDengine error codes used by this project (decimal). */
export const TD = {
  RPC_AUTH_FAILURE: 3,
  RPC_NETWORK_UNAVAIL: 11,
  INVALID_TIMESTAMP: 295,
  TSC_INVALID_OPERATION: 512,
  TSC_SQL_SYNTAX_ERROR: 534,
  TSC_EXCEED_SQL_LIMIT: 537,
  TSC_LINE_SYNTAX_ERROR: 539,
  TSC_VALUE_OUT_OF_RANGE: 548,
  /** 0x022D "Query killed": the query timeout (rest.queryTimeout) or a client that went away */
  TSC_QUERY_KILLED: 557,
  MND_NO_RIGHTS: 771,
  MND_USER_ALREADY_EXIST: 848,
  MND_USER_NOT_EXIST: 849,
  MND_INVALID_USER_FORMAT: 850,
  MND_INVALID_PASS_FORMAT: 851,
  MND_AUTH_FAILURE: 855,
  MND_STB_ALREADY_EXIST: 864,
  MND_STB_NOT_EXIST: 866,
  MND_TOO_MANY_TAGS: 868,
  MND_TOO_MANY_COLUMNS: 869,
  MND_TAG_ALREADY_EXIST: 873,
  MND_TAG_NOT_EXIST: 874,
  MND_COLUMN_ALREADY_EXIST: 875,
  MND_COLUMN_NOT_EXIST: 876,
  MND_DB_ALREADY_EXIST: 897,
  MND_INVALID_DB_OPTION: 898,
  MND_INVALID_DB: 899,
  MND_DB_NOT_EXIST: 904,
  TDB_TABLE_ALREADY_EXIST: 1539,
  TDB_TIMESTAMP_OUT_OF_RANGE: 1547,
  PAR_SYNTAX_ERROR: 9728,
  PAR_INCOMPLETE_SQL: 9729,
  PAR_INVALID_COLUMN: 9730,
  PAR_TABLE_NOT_EXIST: 9731,
  PAR_AMBIGUOUS_COLUMN: 9732,
  PAR_WRONG_VALUE_TYPE: 9733,
  PAR_ILLEGAL_USE_AGG_FUNCTION: 9736,
  PAR_GROUPBY_LACK_EXPRESSION: 9738,
  PAR_NOT_SINGLE_GROUP: 9740,
  PAR_TAGS_NOT_MATCHED: 9741,
  PAR_INVALID_TAG_NAME: 9742,
  PAR_DB_NOT_SPECIFIED: 9750,
  PAR_INVALID_IDENTIFIER_NAME: 9751,
  PAR_CORRESPONDING_STABLE_ERR: 9752,
  PAR_INVALID_DB_OPTION: 9753,
  PAR_GROUPBY_WINDOW_COEXIST: 9764,
  PAR_AGG_FUNC_NESTING: 9767,
  PAR_INTER_OFFSET_TOO_BIG: 9775,
  PAR_INTER_SLIDING_TOO_BIG: 9777,
  PAR_INCORRECT_TIMESTAMP_VAL: 9781,
  PAR_OFFSET_LESS_ZERO: 9783,
  PAR_SLIMIT_LEAK_PARTITION_GROUP_BY: 9784,
  PAR_INVALID_FILL_TIME_RANGE: 9787,
  PAR_DUPLICATED_COLUMN: 9788,
  PAR_INVALID_FIRST_COLUMN: 9793,
  PAR_INVALID_VAR_COLUMN_LEN: 9794,
  PAR_INVALID_ALTER_TABLE: 9801,
  PAR_INVALID_MODIFY_COL: 9803,
  PAR_INVALID_FUNCTION_NAME: 9805,
  PAR_NOT_ALLOWED_FUNC: 9807,
  PAR_INVALID_COL_JSON: 9810,
  PAR_VALUE_TOO_LONG: 9811,
  PAR_FILL_NOT_ALLOWED_FUNC: 9815,
  PAR_INVALID_WINDOW_PC: 9816,
  PAR_WINDOW_NOT_ALLOWED_FUNC: 9817,
  PAR_ONLY_SUPPORT_SINGLE_TABLE: 9823,
  PAR_INTERNAL_ERROR: 9983,
  FUNC_FUNTION_PARA_NUM: 10241,
  FUNC_FUNTION_PARA_TYPE: 10242,
  FUNC_FUNTION_PARA_VALUE: 10243,
  FUNC_NOT_BUILTIN_FUNTION: 10244,
  SML_INVALID_DATA: 12290,
  SML_NOT_SAME_TYPE: 12292,
  GENERIC: 65535,
} as const

export function dbNotExist(_name: string): TdError {
  return new TdError(TD.MND_DB_NOT_EXIST, 'Database not exist')
}

export function tableNotExist(name: string): TdError {
  return new TdError(TD.PAR_TABLE_NOT_EXIST, `Table does not exist: ${name}`)
}

/**
 * TDengine's client refuses a statement longer than TSDB_MAX_ALLOWED_SQL_LEN (1 MiB) before
 * parsing it: 0x0219 "SQL statement too long".
 */
export const MAX_SQL_LENGTH = 1024 * 1024

export function sqlTooLong(): TdError {
  return new TdError(TD.TSC_EXCEED_SQL_LIMIT, 'SQL statement too long')
}

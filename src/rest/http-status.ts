/**
 * HTTP status of a database error (`TdError`) or generic adapter error (65535) on `/rest`.
 * With `httpCodeServerError=false` (the default) every such error is HTTP 200 with the code in
 * the body, which is what TDengine clients expect (`@tdengine/rest` only reads 200 bodies).
 * With `true`: taosAdapter's table (sql-dialect.md 8.1), everything else 500.
 */
export function statusForDbError(code: number, httpCodeServerError: boolean): 200 | 400 | 401 | 500 | 502 {
  if (!httpCodeServerError) {
    return 200
  }
  switch (code) {
    case 534: // TSC_SQL_SYNTAX_ERROR
    case 539: // TSC_LINE_SYNTAX_ERROR
    case 9728: // PAR_SYNTAX_ERROR
    case 1547: // TDB_TIMESTAMP_OUT_OF_RANGE
    case 548: // TSC_VALUE_OUT_OF_RANGE
    case 9787: // PAR_INVALID_FILL_TIME_RANGE
      return 400
    case 11: // RPC_NETWORK_UNAVAIL
      return 502
    default:
      // MND_USER_ALREADY_EXIST .. MND_AUTH_FAILURE (0x0350..0x0357)
      return code >= 848 && code <= 855 ? 401 : 500
  }
}

/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib's crc32 and TDengine's CRC32)
 * of a string's UTF-8 bytes, spelt per backend: DuckDB folds the bytes through a lookup table
 * with list_reduce; PostgreSQL calls a PL/pgSQL function the catalog creates at startup.
 */

/** the 256-entry table: entry n is the CRC register after shifting byte n through */
function crcTable(): number[] {
  const table: number[] = []
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) {
      c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    }
    table.push(c >>> 0)
  }
  return table
}

const TABLE_LITERAL = `[${crcTable().join(', ')}]::BIGINT[]`

/** DuckDB: CRC-32 of the string `value` as BIGINT (NULL for NULL) */
export function duckdbCrc32(value: string): string {
  const hex = `hex(encode(${value}))`
  const bytes = `list_transform(range(0, length(${hex}), 2), i -> ('0x' || substr(${hex}, i + 1, 2))::BIGINT)`
  const step = `(crc, b) -> xor((${TABLE_LITERAL})[(xor(crc, b) & 255) + 1], crc >> 8)`
  return `(CASE WHEN ${value} IS NOT NULL THEN xor(list_reduce(${bytes}, ${step}, CAST(4294967295 AS BIGINT)), CAST(4294967295 AS BIGINT)) END)`
}

/** PostgreSQL: the function created by postgresCrc32Setup */
export function postgresCrc32(schema: string, value: string): string {
  return `${schema}.td_crc32(${value})`
}

/** PostgreSQL: the CREATE statement of td_crc32(text) in `schema` (quoted) */
export function postgresCrc32Setup(schema: string): string {
  return `CREATE OR REPLACE FUNCTION ${schema}.td_crc32(s text) RETURNS bigint LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  b bytea := convert_to(s, 'UTF8');
  crc bigint := 4294967295;
BEGIN
  FOR i IN 0 .. length(b) - 1 LOOP
    crc := crc # get_byte(b, i);
    FOR k IN 1 .. 8 LOOP
      IF (crc & 1) = 1 THEN
        crc := (crc >> 1) # 3988292384;
      ELSE
        crc := crc >> 1;
      END IF;
    END LOOP;
  END LOOP;
  RETURN crc # 4294967295;
END $$`
}

import { GatewayError } from '../http/errors.js'
import { BodyTooLarge, readBodyBytes } from '../ingest/schemaless/request.js'

/** Why a body could not be read, as the status the write endpoints answer. */
export interface BodyRefusal {
  status: number
  message: string
}

/**
 * The request body under the size cap, or the refusal: 413 past http.maxBodySize (decompressed
 * size included), the gateway's own status (corrupt gzip ...), else 400. Each endpoint renders
 * the refusal in its own error format.
 */
export async function readIngestBody(req: Request, limit: number): Promise<Buffer | BodyRefusal> {
  try {
    return await readBodyBytes(req, limit)
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      return { status: 413, message: err.message }
    }
    if (err instanceof GatewayError) {
      return { status: err.status, message: err.message }
    }
    return { status: 400, message: `reading the request body failed: ${err instanceof Error ? err.message : String(err)}` }
  }
}

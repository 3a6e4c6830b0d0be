import { JSON_TYPE } from '../http/error-table.js'

/** A JSON response with the exact bytes given (key order matters to naive clients). */
export function jsonText(text: string, status: number): Response {
  return new Response(text, { status, headers: { 'Content-Type': JSON_TYPE } })
}

/**
 * Bounds on the shape of one SQL statement. The parser, the planner and the SQL writer walk
 * expressions recursively, so the depth of an expression tree is what costs stack; the limits
 * keep that well inside Node's default stack and under DuckDB's own `max_expression_depth`
 * (1000, and it counts about two levels for each of ours: `a + a + ...` fails there at ~500).
 * TDengine itself answers a syntax error for what its grammar stack cannot hold.
 */

/** nested parentheses, function calls, unary operators, CASE and subqueries at once (TDengine's
 * own grammar stack, 100 entries, holds fewer) */
export const MAX_SQL_NESTING = 256

/** the depth of one expression tree: `1 + 1 + ...` is a tree as deep as it has operators */
export const MAX_EXPR_DEPTH = 400

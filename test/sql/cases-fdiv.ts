import { expect } from 'vitest'
import type { Case } from './harness.js'
import { exec } from './harness.js'

/**
 * DOUBLE `/` with C's IEEE results on every backend (TDengine computes in C): a quotient past
 * DBL_MAX is +-inf (null in the JSON, sql-dialect.md), one below the smallest subnormal is +-0,
 * a zero divisor NULL. Written from IEEE 754 by hand: 1e300 / 1e-300 = 1e600 > DBL_MAX (~1.8e308).
 */
export function fdivCases(): Case[] {
  return [
    {
      name: 'DOUBLE / past DBL_MAX gives inf (null), an underflowing quotient 0 with its sign',
      sql: 'select 1e300 / 1e-300, -1e300 / 1e-300, 0.5 / 1e-310, 1e308 / 0.5, 1e-200 / 1e200, -1e-200 / 1e200, 1e308 / 2, 5 / 2, 1 / 0, 0 / 1e-300',
      check: (json, text) => {
        expect(json.code).toBe(0)
        expect(text).toContain('"data":[[null,null,null,null,0,-0,5e+307,2.5,null,0]]')
      },
    },
    { name: 'fdiv: create database', sql: 'create database fdiv', expect: exec(0) },
    { name: 'fdiv: create table', sql: 'create table fdiv.t (ts timestamp, a double, b double)', expect: exec(0) },
    {
      name: 'fdiv: insert',
      sql: 'insert into fdiv.t values (1700000000000, 1e300, 1e-300) (1700000000001, 3, 2) (1700000000002, 1, 0) (1700000000003, -1e-300, 1e300) (1700000000004, null, 1)',
      expect: exec(5),
    },
    {
      name: 'DOUBLE / over columns and computed operands: inf (null), 0, NULL for a zero divisor, row by row',
      sql: 'select a / b, (a + 0) / (b * 1) from fdiv.t',
      check: (json, text) => {
        expect(json.code).toBe(0)
        expect(json.column_meta).toEqual([['a / b', 'DOUBLE', 8], ['(a + 0) / (b * 1)', 'DOUBLE', 8]])
        expect(text).toContain('"data":[[null,null],[1.5,1.5],[null,null],[-0,-0],[null,null]]')
      },
    },
    { name: 'an aggregate of an infinite quotient is inf (null)', sql: 'select max(a / b), count(a / b) from fdiv.t', check: (json, text) => {
      expect(json.code).toBe(0)
      expect(text).toContain('"data":[[null,3]]')
    } },
    { name: 'fdiv: drop database', sql: 'drop database fdiv', expect: exec(0) },
  ]
}

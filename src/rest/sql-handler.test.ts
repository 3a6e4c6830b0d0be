import { describe, expect, it } from 'vitest'
import { redactSql } from './sql-handler.js'

describe('redactSql', () => {
  it('hides passwords of CREATE/ALTER USER', () => {
    expect(redactSql("create user u1 pass 'Secret_1'")).toBe("create user u1 pass '***'")
    expect(redactSql('ALTER USER u1 PASS "x\\"y"')).toBe('ALTER USER u1 PASS "***"')
  })

  it('leaves other statements alone', () => {
    const sql = "select * from db.t where passenger = 'pass'"
    expect(redactSql(sql)).toBe(sql)
  })
})

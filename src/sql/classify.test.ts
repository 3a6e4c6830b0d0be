import { describe, expect, it } from 'vitest'
import { classifySql } from './classify.js'

describe('classifySql', () => {
  it('treats result-set statements as queries', () => {
    for (const s of ['select 1', ' SELECT * from t', '(select 1)', 'show databases', 'describe t', 'DESC t', 'explain select 1', '/*+ x */ select 1', '-- c\nshow users']) {
      expect(classifySql(s), s).toBe('query')
    }
  })

  it('treats everything else as writes', () => {
    for (const s of ['insert into t values (now, 1)', 'create database d', 'drop table t', 'use db', '', 'selective', '-- select']) {
      expect(classifySql(s), s).toBe('write')
    }
  })
})

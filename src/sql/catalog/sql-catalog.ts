import type { DatabaseInfo, DbPrivilege, StableInfo, TableInfo, UserInfo } from '../../storage/td-types.js'
import { TD, TdError } from '../../td-error.js'
import { verifyQueue } from './credential-cache.js'
import { checkPassword, hashPassword } from './passwords.js'
import type { UserRecord } from './row-codecs.js'
import { AlterDdl } from './alter-ddl.js'
import type { LoadableCatalog, TagLookup } from './types.js'

/**
 * The catalog as opened (openCatalog): the lookups every statement and line-protocol series makes,
 * and users. Its parts, from state.ts up, hold loading, replica sync and DDL.
 */

/** the database name of a grant `ON *.*` */
export const ALL_DATABASES = '*'

export class SqlCatalog extends AlterDdl implements LoadableCatalog {
  // ---- lookups -------------------------------------------------------------------------------

  listDatabases(): DatabaseInfo[] {
    this.ready()
    return [...this.dbs.values()]
  }

  getDatabase(name: string): DatabaseInfo | undefined {
    this.ready()
    return this.dbs.get(name)
  }

  listStables(db: string): StableInfo[] {
    this.ready()
    return [...(this.stables.get(db)?.values() ?? [])]
  }

  getStable(db: string, name: string): StableInfo | undefined {
    this.ready()
    return this.stables.get(db)?.get(name)
  }

  listTables(db: string): TableInfo[] {
    this.ready()
    return [...(this.tables.get(db)?.values() ?? [])]
  }

  getTable(db: string, name: string): TableInfo | undefined {
    this.ready()
    return this.tables.get(db)?.get(name)
  }

  tableCounts(db: string): { stables: number; tables: number } {
    this.ready()
    return { stables: this.stables.get(db)?.size ?? 0, tables: this.tables.get(db)?.size ?? 0 }
  }

  tagIndex(db: string, stable: string): TagLookup | undefined {
    this.ready()
    const st = this.stables.get(db)?.get(stable)
    if (st === undefined) {
      return undefined
    }
    return this.tagIndexes.get(db, st, this.changes, () => this.tables.get(db)?.values() ?? [])
  }

  // ---- users ---------------------------------------------------------------------------------

  listUsers(): UserInfo[] {
    this.ready()
    return [...this.users.values()].map(({ hash: _hash, ...u }) => u)
  }

  getUser(name: string): UserInfo | undefined {
    this.ready()
    const u = this.users.get(name)
    if (u === undefined) {
      return undefined
    }
    const { hash: _hash, ...info } = u
    return info
  }

  async createUser(name: string, password: string, opts: Partial<UserInfo> = {}): Promise<void> {
    const hash = await hashPassword(password)
    await this.mutate(async () => {
      if (this.users.has(name)) {
        throw new TdError(TD.MND_USER_ALREADY_EXIST, 'User already exists')
      }
      const u: UserRecord = {
        name,
        hash,
        super: opts.super ?? false,
        enable: opts.enable ?? true,
        sysinfo: opts.sysinfo ?? true,
        createdb: opts.createdb ?? false,
        createdAt: Date.now(),
      }
      await this.engine.exec(
        `INSERT INTO ${this.cat('users')} (name, hash, is_super, enabled, sysinfo, createdb, created_at) VALUES (${this.s(name)}, ${this.s(hash)}, ${u.super}, ${u.enable}, ${u.sysinfo}, ${u.createdb}, ${u.createdAt})`,
      )
      this.users.set(name, u)
    }, () => this.syncUser(name))
  }

  private requireUser(name: string): UserRecord {
    this.ready()
    const u = this.users.get(name)
    if (!u) {
      throw new TdError(TD.MND_USER_NOT_EXIST, 'Invalid user')
    }
    return u
  }

  async alterUserPassword(name: string, password: string): Promise<void> {
    this.requireUser(name)
    const hash = await hashPassword(password)
    await this.mutate(async () => {
      const u = this.requireUser(name)
      await this.engine.exec(`UPDATE ${this.cat('users')} SET hash = ${this.s(hash)} WHERE name = ${this.s(name)}`)
      u.hash = hash
      this.authCache.delete(name)
    }, () => this.syncUser(name))
  }

  async alterUser(name: string, opts: Partial<UserInfo>): Promise<void> {
    await this.mutate(async () => {
      const u = this.requireUser(name)
      const next = { ...u }
      for (const k of ['super', 'enable', 'sysinfo', 'createdb'] as const) {
        if (opts[k] !== undefined) {
          next[k] = Boolean(opts[k])
        }
      }
      await this.engine.exec(
        `UPDATE ${this.cat('users')} SET is_super = ${next.super}, enabled = ${next.enable}, sysinfo = ${next.sysinfo}, createdb = ${next.createdb} WHERE name = ${this.s(name)}`,
      )
      this.users.set(name, next)
      this.authCache.delete(name)
    }, () => this.syncUser(name))
  }

  async dropUser(name: string): Promise<void> {
    await this.mutate(async () => {
      this.requireUser(name)
      if (name === 'root') {
        throw new TdError(TD.MND_NO_RIGHTS, 'Insufficient privilege for operation')
      }
      await this.engine.transaction(async (tx) => {
        await tx.exec(`DELETE FROM ${this.cat('users')} WHERE name = ${this.s(name)}`)
        // a user created again under the same name starts without the old grants
        await tx.exec(`DELETE FROM ${this.cat('privileges')} WHERE usr = ${this.s(name)}`)
      })
      this.users.delete(name)
      this.authCache.delete(name)
      this.setGrants(this.listPrivileges().filter((p) => p.user !== name))
    }, async () => {
      await this.syncUser(name)
      await this.syncPrivileges()
    })
  }

  // ---- privileges ----------------------------------------------------------------------------

  /** what `user` was granted on `db` (ownership and super users are the access rules' business) */
  granted(user: string, db: string): { read: boolean; write: boolean } {
    this.ready()
    const m = this.grants.get(`${user}\u0000${db}`)
    return { read: m?.has('read') === true, write: m?.has('write') === true }
  }

  /** GRANT: adds the privileges not held yet (granting one already held is not an error) */
  async grant(user: string, db: string, privileges: DbPrivilege[]): Promise<void> {
    await this.changeGrants(user, db, privileges, true)
  }

  /** REVOKE: removes them (revoking one not held is not an error) */
  async revoke(user: string, db: string, privileges: DbPrivilege[]): Promise<void> {
    await this.changeGrants(user, db, privileges, false)
  }

  private async changeGrants(user: string, db: string, privileges: DbPrivilege[], add: boolean): Promise<void> {
    await this.mutate(async () => {
      this.requireUser(user)
      if (db !== ALL_DATABASES) {
        this.requireDb(db)
      }
      const now = Date.now()
      const rows = this.listPrivileges().filter((p) => !(p.user === user && p.db === db && !add && privileges.includes(p.privilege)))
      await this.engine.transaction(async (tx) => {
        for (const privilege of privileges) {
          const held = this.granted(user, db)[privilege]
          if (add && !held) {
            await tx.exec(
              `INSERT INTO ${this.cat('privileges')} (usr, db, privilege, created_at) VALUES (${this.s(user)}, ${this.s(db)}, ${this.s(privilege)}, ${now})`,
            )
            rows.push({ user, db, privilege, createdAt: now })
          } else if (!add && held) {
            await tx.exec(
              `DELETE FROM ${this.cat('privileges')} WHERE usr = ${this.s(user)} AND db = ${this.s(db)} AND privilege = ${this.s(privilege)}`,
            )
          }
        }
      })
      this.setGrants(rows)
    }, async () => {
      await this.syncUser(user)
      await this.syncDatabases()
      await this.syncPrivileges()
    })
  }

  isVerified(name: string, password: string): boolean {
    this.ready()
    const u = this.users.get(name)
    return u !== undefined && u.enable && this.authCache.has(name, password, u.hash)
  }

  async verifyUser(name: string, password: string, client = 'internal'): Promise<boolean> {
    this.ready()
    const u = this.users.get(name)
    if (!u || !u.enable) {
      return false
    }
    const hash = u.hash
    if (this.authCache.has(name, password, hash)) {
      return true
    }
    // scrypt through the bounded, fair queue (throws QueueFullError when it is full)
    const ok = await verifyQueue.run(client, () => checkPassword(password, hash))
    if (ok) {
      this.authCache.set(name, password, hash)
    }
    return ok
  }
}

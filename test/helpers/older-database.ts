import type { MikroORM } from '@mikro-orm/postgresql';
import type { migrationsFor } from '../../migrations/index.ts';

/** Migrates `orm`'s database up to the migration just before the one whose name ends with `suffix`. */
export async function migrateToJustBefore(
  orm: MikroORM,
  migrations: ReturnType<typeof migrationsFor>,
  suffix: string,
) {
  const index = migrations.findIndex((m) => m.name.endsWith(suffix));
  await orm.migrator.up({ to: migrations[index - 1]!.name });
}

/** An organization written straight into the database, as an older version of the service left it. */
export async function insertOrganization(orm: MikroORM, id: string, name: string) {
  await orm.em
    .getConnection()
    .execute('insert into organization (id, name, created_at) values (?, ?, now())', [id, name]);
}

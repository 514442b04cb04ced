import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TestApp } from '../test-app.ts';

/**
 * A cheap summary of everything a request could change: per table its row count and an
 * order-independent hash of its rows, the object files on disk, and — separately — the rows
 * and files that belong to the other organization (a uuid column holds one of its ids),
 * which no request of the caller may ever change.
 */
export interface Fingerprint {
  tables: Record<string, string>;
  objects: string;
  foreignTables: Record<string, string>;
  foreignObjects: string;
}

/** Tables whose contents change on every request (sessions are renewed): only their row count counts. */
const COUNT_ONLY = /session/;
/**
 * Failed logins are counted on purpose (a 401 that writes a throttle row is the design), and so is
 * every request of a signed-in caller, refused ones included (the shared rate-limit counters), and
 * every open event stream (`open_stream`: a row while it is open, deleted once the server sees its
 * client gone, which the walk's next look may precede; test/stream-limits.test.ts proves the release).
 */
const IGNORED = new Set(['mikro_orm_migrations', 'login_throttle', 'rate_limit_counter', 'open_stream']);

export interface Fingerprinter {
  take(): Promise<Fingerprint>;
  tables: string[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function createFingerprinter(
  t: TestApp,
  dataDir: string,
  foreign: { organizationId: string; ids: string[] },
): Promise<Fingerprinter> {
  const connection = t.app.database.orm.em.getConnection();
  const columns = await connection.execute<{ table_name: string; column_name: string; data_type: string }[]>(
    `select c.table_name, c.column_name, c.data_type
       from information_schema.columns c
       join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
      order by c.table_name, c.ordinal_position`,
  );
  const tables = [...new Set(columns.map((c) => c.table_name))].filter((name) => !IGNORED.has(name));
  const ids = `array[${foreign.ids.map((id) => `'${id.replace(/[^0-9a-f-]/g, '')}'`).join(',')}]::uuid[]`;
  const sql = tables
    .map((table) => {
      const uuidColumns = columns.filter((c) => c.table_name === table && c.data_type === 'uuid');
      const owned = uuidColumns.length
        ? uuidColumns.map((c) => `x.${quote(c.column_name)} = any(${ids})`).join(' or ')
        : 'false';
      // hashtextextended summed: independent of row order, so no sort of the whole table.
      const hash = COUNT_ONLY.test(table)
        ? `''`
        : `coalesce(sum(hashtextextended(x::text, 0)::numeric), 0)::text`;
      const foreignHash = COUNT_ONLY.test(table)
        ? `count(*) filter (where ${owned})::text`
        : `(count(*) filter (where ${owned}))::text || ':' || coalesce(sum(hashtextextended(x::text, 0)::numeric) filter (where ${owned}), 0)::text`;
      return `select '${table}' as name, count(*)::text || ':' || ${hash} as whole, ${foreignHash} as foreign from ${quote(table)} x`;
    })
    .join(' union all ');
  const objectsRoot = path.join(dataDir, 'objects');
  const foreignPrefix = path.join('org', foreign.organizationId);

  return {
    tables,
    async take() {
      const result = await connection.execute<{ name: string; whole: string; foreign: string }[]>(sql);
      const files = await listFiles(objectsRoot);
      return {
        tables: Object.fromEntries(result.map((row) => [row.name, row.whole])),
        foreignTables: Object.fromEntries(result.map((row) => [row.name, row.foreign])),
        objects: files.join('\n'),
        foreignObjects: files.filter((file) => file.startsWith(foreignPrefix)).join('\n'),
      };
    },
  };
}

/** Every file under a folder as `relative/path size`, sorted. */
async function listFiles(root: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(root, { recursive: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort()) {
    const info = await stat(path.join(root, entry)).catch(() => undefined);
    if (info?.isFile()) files.push(`${entry} ${info.size}`);
  }
  return files;
}

/** What differs between two fingerprints, as short lines ("deck: 3:123… → 4:456…"). */
export function differences(before: Record<string, string>, after: Record<string, string>): string[] {
  const lines: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[key] !== after[key])
      lines.push(`${key}: ${before[key]?.slice(0, 16)} → ${after[key]?.slice(0, 16)}`);
  }
  return lines;
}

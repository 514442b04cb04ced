import { Migration } from '@mikro-orm/migrations';

export class Migration20261121222004_files extends Migration {
  override name = 'Migration20261121222004_files';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "kb_document" ("id" uuid not null, "organization_id" uuid not null, "filename" varchar(255) not null, "display_name" varchar(255) null, "content_type" varchar(150) not null, "size_bytes" bigint not null, "storage_key" varchar(1024) not null, "status" text not null default 'pending', "uploaded_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "kb_document" add constraint "kb_document_storage_key_unique" unique ("storage_key");`,
    );
    this.addSql(
      `create index "kb_document_organization_id_created_at_index" on "kb_document" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "image" ("id" uuid not null, "organization_id" uuid not null, "filename" varchar(255) not null, "object_key" varchar(1024) not null, "mime_type" varchar(100) not null, "size" int not null, "width" int not null, "height" int not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "image" add constraint "image_object_key_unique" unique ("object_key");`);
    this.addSql(
      `create index "image_organization_id_created_at_index" on "image" ("organization_id", "created_at");`,
    );

    this.addSql(
      `alter table "kb_document" add constraint "kb_document_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "kb_document" add constraint "kb_document_status_check" check ("status" in ('pending', 'uploaded'));`,
    );

    this.addSql(
      `alter table "image" add constraint "image_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "kb_document" cascade;`);
    this.addSql(`drop table if exists "image" cascade;`);
  }
}

import { defineEntity, p } from '@mikro-orm/core';

const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: {
    id: p.uuid().primary(),
    // Unique so that the admin CLI can find-or-create an organization by name.
    name: p.string().length(200).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);

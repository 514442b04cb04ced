import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Organization } from './Organization.ts';

export const USER_ROLES = ['owner', 'admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

const UserSchema = defineEntity({
  name: 'User',
  tableName: 'app_user',
  extends: BaseEntity,
  properties: {
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    // Stored lower-cased; login is by e-mail alone, so it is unique across organizations.
    email: p.string().length(320).unique(),
    name: p.string().length(200),
    role: p.enum(USER_ROLES).default('member'),
    passwordHash: p.string().length(255).hidden(),
  },
});

export class User extends UserSchema.class {}
UserSchema.setClass(User);

import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Organization } from './Organization.ts';

export const KB_DOCUMENT_STATUSES = ['pending', 'uploaded'] as const;
export type KbDocumentStatus = (typeof KB_DOCUMENT_STATUSES)[number];

/**
 * A knowledge-base document: `pending` from upload-init until the client has PUT the file
 * to its presigned address and called complete, `uploaded` after.
 */
const KbDocumentSchema = defineEntity({
  name: 'KbDocument',
  tableName: 'kb_document',
  extends: BaseEntity,
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    filename: p.string().length(255),
    displayName: p.string().length(255).nullable(),
    contentType: p.string().length(150),
    sizeBytes: p.bigint('number'),
    storageKey: p.string().length(1024).unique(),
    status: p.enum(KB_DOCUMENT_STATUSES).default('pending'),
    uploadedAt: p.datetime().nullable(),
  },
});

export class KbDocument extends KbDocumentSchema.class {}
KbDocumentSchema.setClass(KbDocument);

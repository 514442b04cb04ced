import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './Organization.ts';

/** An image of the organization's library; the bytes are in object storage at `objectKey`. */
const ImageSchema = defineEntity({
  name: 'Image',
  tableName: 'image',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    filename: p.string().length(255),
    objectKey: p.string().length(1024).unique(),
    mimeType: p.string().length(100),
    size: p.integer(),
    width: p.integer(),
    height: p.integer(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Image extends ImageSchema.class {}
ImageSchema.setClass(Image);

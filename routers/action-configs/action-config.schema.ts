import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { ACTION_CONFIG_STATUSES, type ActionConfig } from '../../entities/ActionConfig.ts';
import { text } from '../shared.schema.ts';

/** Markdown fields are capped in UTF-8 bytes; past the cap the answer is 413, not 400. */
export const MARKDOWN_MAX_BYTES = 200 * 1024;

export const actionConfigIdInput = z.object({ actionConfigId: z.uuid() });

/** A JSON object (not an array or a scalar) whose strings PostgreSQL can store. */
const requirementsJson = z
  .record(z.string(), z.unknown())
  .refine((value) => !JSON.stringify(value).includes('\\u0000'), 'must not contain the NUL character')
  .refine((value) => JSON.stringify(value).length <= 64 * 1024, 'must be at most 64 kB as JSON')
  .meta({ description: 'Free-form requirements of the action, as a JSON object' });

export const actionConfigFields = {
  actionType: text()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a lower-case word such as loi')
    .meta({ example: 'loi' }),
  templateMarkdown: text().min(1),
  disclosuresMarkdown: text().nullable(),
  requirementsJson: requirementsJson.nullable(),
  repName: text().trim().max(200).nullable(),
  status: z.enum(ACTION_CONFIG_STATUSES),
};

export function assertMarkdownSize(fields: Record<string, string | null | undefined>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (value && Buffer.byteLength(value, 'utf8') > MARKDOWN_MAX_BYTES) {
      throw new TRPCError({
        code: 'PAYLOAD_TOO_LARGE',
        message: `${field} is larger than ${MARKDOWN_MAX_BYTES / 1024} kB`,
      });
    }
  }
}

export const actionConfigOutput = z
  .object({
    id: z.uuid(),
    deckId: z.uuid(),
    actionType: z.string(),
    templateMarkdown: z.string(),
    disclosuresMarkdown: z.string().nullable(),
    requirementsJson: z.record(z.string(), z.unknown()).nullable(),
    repName: z.string().nullable(),
    status: z.enum(ACTION_CONFIG_STATUSES),
    publishedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'ActionConfig' });

export type ActionConfigOutput = z.infer<typeof actionConfigOutput>;

export function toActionConfigOutput(config: ActionConfig): ActionConfigOutput {
  return {
    id: config.id,
    deckId: config.deck.id,
    actionType: config.actionType,
    templateMarkdown: config.templateMarkdown,
    disclosuresMarkdown: config.disclosuresMarkdown ?? null,
    requirementsJson: config.requirementsJson ?? null,
    repName: config.repName ?? null,
    status: config.status,
    publishedAt: config.publishedAt?.toISOString() ?? null,
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
  };
}

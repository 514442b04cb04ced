import { z } from 'zod';
import { ACTION_CONFIG_STATUSES, type ActionConfig } from '../../entities/ActionConfig.ts';

/** An action config as every route answers it (and as its events carry it). */
export const actionConfigOutput = z
  .object({
    id: z.uuid(),
    deckId: z.uuid(),
    actionType: z.string(),
    templateMarkdown: z.string(),
    disclosuresMarkdown: z.string().nullable(),
    // The interface types it an optional object (unlike the two texts beside it, not nullable):
    // left out when the config has none.
    requirementsJson: z.record(z.string(), z.unknown()).optional(),
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
    ...(config.requirementsJson != null ? { requirementsJson: config.requirementsJson } : {}),
    repName: config.repName ?? null,
    status: config.status,
    publishedAt: config.publishedAt?.toISOString() ?? null,
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
  };
}

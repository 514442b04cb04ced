import { ActionConfig, type ActionConfigStatus } from '../../entities/ActionConfig.ts';
import { newId } from '../../entities/ids.ts';
import { applyChanges } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { badRequest } from '../errors.ts';
import { changeOne, createOne, removeOne } from '../mutation.ts';
import { type ActionConfigOutput, toActionConfigOutput } from './action-config-output.ts';
import { assertMarkdownSize } from './action-config-rules.ts';
import { findActionConfig } from './find-action-config.ts';

/** The fields of an action config a caller sets (checked by the transport's schema). */
export interface ActionConfigFields {
  actionType: string;
  templateMarkdown: string;
  disclosuresMarkdown: string | null;
  requirementsJson: Record<string, unknown> | null;
  repName: string | null;
  status: ActionConfigStatus;
}

export async function createActionConfig(
  { em, auth }: DomainContext,
  input: Pick<ActionConfigFields, 'actionType' | 'templateMarkdown' | 'status'> &
    Partial<ActionConfigFields> & { deckId: string },
): Promise<ActionConfigOutput> {
  assertMarkdownSize({
    templateMarkdown: input.templateMarkdown,
    disclosuresMarkdown: input.disclosuresMarkdown,
  });
  return createOne(em, auth, {
    create: async (em) => {
      // Locked: a deck deleted meanwhile is a 404, not a foreign-key violation.
      const deck = await findDeck(em, auth, input.deckId, { lock: true });
      return em.create(ActionConfig, {
        id: newId(),
        deck,
        actionType: input.actionType,
        templateMarkdown: input.templateMarkdown,
        disclosuresMarkdown: input.disclosuresMarkdown ?? null,
        requirementsJson: input.requirementsJson ?? null,
        repName: input.repName ?? null,
        status: input.status,
        // Published at creation: publishedAt is createdAt, so this one insert names its time.
        ...(input.status === 'published' ? publishedNow() : { publishedAt: null }),
      });
    },
    answer: toActionConfigOutput,
    event: (config, output) => ({
      type: 'action_config.created',
      aggregateId: config.id,
      deckId: config.deck.id,
      payload: output,
    }),
  });
}

function publishedNow(): { publishedAt: Date; createdAt: Date; updatedAt: Date } {
  const now = new Date();
  return { publishedAt: now, createdAt: now, updatedAt: now };
}

/** The deck's action configs, oldest first. */
export async function listActionConfigs(
  { em, auth }: DomainContext,
  deckId: string,
): Promise<{ actionConfigs: ActionConfigOutput[] }> {
  const deck = await findDeck(em, auth, deckId);
  const configs = await em.find(ActionConfig, { deck }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return { actionConfigs: configs.map(toActionConfigOutput) };
}

export async function getActionConfig(
  { em, auth }: DomainContext,
  actionConfigId: string,
): Promise<ActionConfigOutput> {
  return toActionConfigOutput(await findActionConfig(em, auth, actionConfigId));
}

/**
 * Edits fields and moves between `draft` and `published`. Publishing sets `publishedAt`
 * and writes `action_config.published`; going back to draft clears it (`…updated`).
 */
export async function updateActionConfig(
  { em, auth }: DomainContext,
  input: Partial<ActionConfigFields> & { actionConfigId: string },
): Promise<ActionConfigOutput> {
  const { actionConfigId, ...changes } = input;
  if (Object.keys(changes).length === 0) throw badRequest('Send at least one field to change');
  assertMarkdownSize({
    templateMarkdown: changes.templateMarkdown,
    disclosuresMarkdown: changes.disclosuresMarkdown,
  });
  const { status, ...fields } = changes;
  // Locked: a concurrent delete makes this a 404 instead of an event for a deleted config.
  let publishing = false;
  return changeOne(em, auth, {
    find: (em) => findActionConfig(em, auth, actionConfigId, { lock: true }),
    change: (config) => {
      publishing = status === 'published' && config.status !== 'published';
      // `publishedAt` moves only with a change of status (publishing again keeps the first date).
      const statusChange =
        status !== undefined && status !== config.status
          ? { status, publishedAt: status === 'published' ? new Date() : null }
          : {};
      return applyChanges(config, { ...fields, ...statusChange });
    },
    answer: toActionConfigOutput,
    event: (config, output) => ({
      type: publishing ? 'action_config.published' : 'action_config.updated',
      aggregateId: config.id,
      deckId: output.deckId,
      payload: output,
    }),
  });
}

export async function deleteActionConfig(
  { em, auth }: DomainContext,
  actionConfigId: string,
): Promise<{ success: true }> {
  // Locked: of two concurrent deletes one answers 404, and one event is written.
  await removeOne(em, auth, {
    find: (em) => findActionConfig(em, auth, actionConfigId, { lock: true }),
    answer: toActionConfigOutput,
    event: (config, output) => ({
      type: 'action_config.deleted',
      aggregateId: config.id,
      deckId: output.deckId,
      payload: output,
    }),
  });
  return { success: true as const };
}

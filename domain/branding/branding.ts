import { DeckBranding } from '../../entities/DeckBranding.ts';
import type { DomainContext } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { changeOne } from '../mutation.ts';
import { checkOwnObjectKeys } from '../object-keys.ts';
import { type BrandingData, type BrandingOutput, toBrandingOutput } from './branding-output.ts';

/** What a PUT sends: the palette and the call to action, and optional fields (absent: null). */
export type BrandingInput = Pick<BrandingData, 'palette' | 'cta'> & {
  [K in Exclude<keyof BrandingData, 'palette' | 'cta'>]?: BrandingData[K];
};

/** Null until saved. */
export async function getBranding(
  { em, auth }: DomainContext,
  deckId: string,
): Promise<{ branding: BrandingOutput | null }> {
  const deck = await findDeck(em, auth, deckId);
  const branding = await em.findOne(DeckBranding, { deck });
  return { branding: branding ? toBrandingOutput(branding) : null };
}

/** Creates or replaces the branding; saving is always news (an event, `updatedAt` moves). */
export async function saveBranding(
  { em, services, auth }: DomainContext,
  input: BrandingInput & { deckId: string },
): Promise<{ branding: BrandingOutput }> {
  const { deckId, ...fields } = input;
  await checkOwnObjectKeys(auth, services.storage, { logo: fields.logo, avatar: fields.avatar });
  const data = normaliseBranding(fields);
  const branding = await changeOne(em, auth, {
    // The deck's row lock makes concurrent first saves queue up: find-then-create is safe under it.
    find: async (em) => {
      const deck = await findDeck(em, auth, deckId, { lock: true });
      return (await em.findOne(DeckBranding, { deck })) ?? em.create(DeckBranding, { deck, data });
    },
    change: (branding) => {
      branding.data = data;
      return 'always';
    },
    answer: toBrandingOutput,
    event: (_, output) => ({
      type: 'deck.branding_updated',
      aggregateId: deckId,
      deckId,
      payload: { branding: output },
    }),
  });
  return { branding };
}

/** The stored form: every field present, null when not given. */
function normaliseBranding(input: BrandingInput): BrandingData {
  return {
    name: input.name ?? null,
    palette: input.palette,
    cta: input.cta,
    logo: input.logo ?? null,
    avatar: input.avatar ?? null,
    chatName: input.chatName ?? null,
    chatGreeting: input.chatGreeting ?? null,
    fonts: input.fonts ?? null,
    contact: input.contact ?? null,
  };
}

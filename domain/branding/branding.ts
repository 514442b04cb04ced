import { DeckBranding } from '../../entities/DeckBranding.ts';
import { touch } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { recordEvent } from '../events/record-event.ts';
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
  return em.transactional(async (em) => {
    // The deck's row lock makes concurrent first saves queue up: find-then-create is safe under it.
    const deck = await findDeck(em, auth, deckId, { lock: true });
    let branding = await em.findOne(DeckBranding, { deck });
    if (branding) {
      branding.data = data;
      touch(branding);
    } else {
      const now = new Date();
      branding = em.create(DeckBranding, { deck, data, createdAt: now, updatedAt: now });
    }
    const output = toBrandingOutput(branding);
    recordEvent(em, auth, 'deck.branding_updated', {
      aggregateId: deck.id,
      deckId: deck.id,
      payload: { branding: output },
    });
    await em.flush();
    return { branding: output };
  });
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

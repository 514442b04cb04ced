import { findDeck } from '../../domain/decks/find-deck.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import { checkVoice } from '../../domain/voices/check-voice.ts';
import { DeckIntro } from '../../entities/DeckIntro.ts';
import { authedProcedure } from '../trpc.ts';
import { introInput, introOutput, toIntroOutput } from './intro.schema.ts';

export const saveIntro = authedProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/decks/{deckId}/intro',
      tags: ['intro'],
      summary: 'Create or replace the deck’s intro',
    },
  })
  .input(introInput)
  .output(introOutput)
  .mutation(async ({ ctx, input }) => {
    await checkVoice(ctx.services, input.voiceId);
    return ctx.em.transactional(async (em) => {
      // The deck's row lock makes concurrent first saves queue up: find-then-create is safe under it.
      const deck = await findDeck(em, ctx.auth, input.deckId, { lock: true });
      const now = new Date();
      let intro = await em.findOne(DeckIntro, { deck });
      const fields = { title: input.title ?? null, script: input.script, voiceId: input.voiceId ?? null };
      if (intro) {
        // A new script needs new audio: the old one no longer says it.
        if (intro.script !== fields.script || intro.voiceId !== fields.voiceId) intro.audioKey = null;
        Object.assign(intro, fields, { updatedAt: now });
      } else {
        intro = em.create(DeckIntro, { deck, ...fields, audioKey: null, createdAt: now, updatedAt: now });
      }
      const output = await toIntroOutput(intro, ctx.services);
      const { audioUrl: _signed, ...stored } = output;
      recordEvent(em, ctx.auth, 'deck.intro_saved', {
        aggregateId: deck.id,
        deckId: deck.id,
        payload: { intro: stored },
      });
      await em.flush();
      return output;
    });
  });

import { followProgress } from '../../domain/generation/generation-progress.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';

/** The deck's generation status at once and after every change; it completes after `completed` or `failed`. */
export const onProgress = authedProcedure
  .meta({ access: 'read' })
  .input(deckIdInput)
  .subscription(({ ctx, input, signal }) =>
    followProgress({ ...ctx, sessionTokenHash: ctx.session.tokenHash }, input.deckId, signal),
  );

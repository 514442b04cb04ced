import { router } from '../trpc.ts';
import { createDeck } from './create-deck.ts';
import { deleteDeck } from './delete-deck.ts';
import { getDeck } from './get-deck.ts';
import { listDecks } from './list-decks.ts';
import { updateDeck } from './update-deck.ts';

export const decksRouter = router({
  create: createDeck,
  list: listDecks,
  get: getDeck,
  update: updateDeck,
  delete: deleteDeck,
});

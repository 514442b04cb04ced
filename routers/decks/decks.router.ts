import { router } from '../trpc.ts';
import { createDeck } from './create-deck.ts';
import { deleteDeck } from './delete-deck.ts';
import { getDeck } from './get-deck.ts';
import { listDecks } from './list-decks.ts';
import { updateDeck } from './update-deck.ts';

/** Router keys are the procedures' names (file, export and key agree): `decks.createDeck`. */
export const decksRouter = router({ createDeck, listDecks, getDeck, updateDeck, deleteDeck });

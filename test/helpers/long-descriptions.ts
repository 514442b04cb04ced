/**
 * Placeholders that describe what goes in them, at any length, nested parentheses and quotes
 * included: the sentences they stand in, and the variable each one is. The placeholder scan's
 * unit test and the import's HTTP test read the same three.
 */
export const LONG_DESCRIPTION_LINES = [
  'Signed for the employer by [Full name of the authorized signatory signing for the employer].',
  'The Employee holds shares under [Reference to the founder\'s existing Restricted Stock Purchase Agreement (for example, "Restricted Stock Purchase Agreement dated January 1, 2022")].',
  'This offer lapses unless accepted by [Date by which the offer must be accepted].',
];

export const LONG_DESCRIPTION_VARIABLES = [
  [
    'placeholder',
    'authorized_signatory_full_name',
    '[Full name of the authorized signatory signing for the employer]',
  ],
  [
    'placeholder',
    'founder_restricted_stock_purchase_reference',
    '[Reference to the founder\'s existing Restricted Stock Purchase Agreement (for example, "Restricted Stock Purchase Agreement dated January 1, 2022")]',
  ],
  ['placeholder', 'offer_accepted_date', '[Date by which the offer must be accepted]'],
];

/** What kind of value a candidate is: its name when nothing in its context names it. */
export type ValueType =
  | 'party'
  | 'date'
  | 'amount'
  | 'percentage'
  | 'duration'
  | 'address'
  | 'email'
  | 'phone'
  | 'governing_law'
  | 'venue'
  | 'value';

/** A value found at one place of the text, before the merge. */
export interface Candidate {
  type: ValueType;
  /** snake_case: from the context (label, defined term, role, clause), else the type. */
  name: string;
  /** True when the name comes from the context: it then wins over a type's name for the same text. */
  named: boolean;
  text: string;
  index: number;
  /**
   * It stands where a form leaves a blank of its kind (a label's value, a key-terms cell, a party
   * in the preamble, the agreement's date, a signature block, a quoted name): a value even where
   * the document still leaves its parties or dates blank. Unset: the contract's wording.
   */
  slot?: boolean;
}

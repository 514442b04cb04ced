/**
 * Signature blocks printed side by side, as a filing's text or a PDF's reader puts them on one
 * line: where one column's party name starts.
 */

/**
 * Where a party's whole name (as its preamble spelled it, of two words or more) ends `name` after
 * other words, or 0. Signature blocks are printed side by side, and a filing's text or a PDF's
 * reader puts their columns on one line ("EWSD 1, LLC d/b/a Shi Farms Gridiron BioNutrients,
 * Inc.", "Acme Software Co. Limited Beta Labs, Inc.,"), with each block's caption (the party's
 * defined term, "CLIENT VENDOR") before the names: the words before the party's name there are
 * another column's or a caption, not the name's. The block may type the name in capitals, and a
 * final period may differ ("Inc" in the preamble, "Inc." in the block).
 */
export function partyNameAt(name: string, parties: readonly { name: string }[]): number {
  const bare = (name.endsWith('.') ? name.slice(0, -1) : name).toLowerCase();
  for (const { name: party } of parties) {
    const own = (party.endsWith('.') ? party.slice(0, -1) : party).toLowerCase();
    if (own.includes(' ') && bare.length > own.length && bare.endsWith(` ${own}`))
      return bare.length - own.length;
  }
  return 0;
}

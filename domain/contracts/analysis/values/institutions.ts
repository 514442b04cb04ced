/**
 * The head nouns that public bodies and institutions are named by instead of a legal form: "U.S.
 * Small Business Administration", "Federal Election Commission", "Northvale Medical University",
 * "Centre for Brain Imaging Research", "Institut Valmont de recherche biomédicale" (English, French
 * and German spellings). Lower case.
 */
export const INSTITUTION_HEADS = new Set(
  (
    'university universities institute institution centre center administration commission agency ' +
    'department ministry authority foundation trust hospital college school academy council ' +
    'laboratory laboratories society association museum library ' +
    'université institut unité centre laboratoire école fondation département hôpital ' +
    'universität institut stiftung klinikum hochschule akademie zentrum ' +
    // A unit's head nouns: "Clinical Research Unit", "Faculty of Law", "Abteilung für Radiologie".
    'unit division faculty clinic faculté clinique fakultät abteilung klinik zentrums'
  ).split(' '),
);

/** Whether a name holds an institution's or a unit's head noun (`INSTITUTION_HEADS`), as a word of its own. */
export function namesInstitution(name: string): boolean {
  return name.split(' ').some((word) => INSTITUTION_HEADS.has(word.toLowerCase()));
}

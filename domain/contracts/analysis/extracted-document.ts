/**
 * What a text extractor makes of a PDF or DOCX: the input of the analysis (analyze.ts).
 *
 * `text` is the same for a DOCX and for the PDF printed from it: one paragraph a line (a PDF's
 * wrapped lines joined), white space inside a line collapsed to one space, a table's row one line
 * with its cells separated by a tab, no page numbers.
 */
export interface ExtractedDocument {
  text: string;
  /** Its form fields, in the order they stand in the document. */
  formFields: FormField[];
}

/** A form field, named as the document names it (the analysis makes a variable's name of it). */
export type FormField = ShownField | WidgetField;

/** A DOCX's content control or merge field: `shown` is what Word shows for it, in `text`'s format. */
export interface ShownField {
  name: string;
  shown: string;
}

/**
 * A PDF's AcroForm field: it has no text on the page, so it stands at no place of `text`; the
 * form shows it in `widgets` places.
 */
export interface WidgetField {
  name: string;
  widgets: number;
}

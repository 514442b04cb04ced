import { DOMParser, type Element, type Node, type Text } from '@xmldom/xmldom';
import { unzipSync } from 'fflate';
import type { ShownField } from '../../domain/contracts/analysis/extracted-document.ts';
import { MAX_VARIABLE_TEXT } from '../../domain/contracts/analysis/findings.ts';
import { fieldName } from '../../domain/contracts/analysis/form-fields.ts';
import { normalizeLine } from './text-format.ts';

/**
 * At most this many content controls and merge fields are read (counting those the analysis can
 * name: `fieldName`).
 */
const MAX_FIELDS = 1_000;
/** Longest field instruction read (Word's own limit is 255 characters). */
const MAX_INSTRUCTION = 1_000;
/** Fields nested deeper than this are read as their outer field's text. */
const MAX_NESTING = 32;
/** Most nodes walked for one control's shown text. */
export const MAX_WALK = 10_000;
/**
 * Most elements walked for all controls' shown texts together: each control's walk covers what
 * it contains, so nested controls walked the same elements again, once for each control around
 * them (40,000 nested in a 10 KB file took 54 s). Past it, the remaining controls are left out.
 */
const MAX_WALK_TOTAL = 100_000;

/**
 * The content controls (`w:sdt`, named by their `w:tag`, else their `w:alias`) and merge fields
 * (`MERGEFIELD Name`, simple or complex) of a DOCX's body, with the text each shows (in the text
 * format: the analysis finds it in the document's text, domain/contracts/analysis/form-fields.ts).
 *
 * Read from the XML here because officeparser's AST keeps a control's content and a field's
 * result as text but drops what names them (the control's tag and alias, the field's
 * instruction). Only `word/document.xml` is inflated, and only when it is no larger than
 * `maxExpandedBytes` (officeparser has read the same part under the same limit just before);
 * a part declaring a DOCTYPE (Word never writes one: it is how an entity bomb starts) is not read.
 */
export function docxFields(docx: Uint8Array, maxExpandedBytes: number): ShownField[] {
  let tooLarge = false;
  const files = unzipSync(docx, {
    filter: (file) => {
      if (file.name !== 'word/document.xml') return false;
      tooLarge = file.originalSize > maxExpandedBytes;
      return !tooLarge;
    },
  });
  const part = files['word/document.xml'];
  if (!part || tooLarge) return [];
  const xml = new TextDecoder().decode(part);
  if (xml.includes('<!DOCTYPE')) return [];
  // Most documents have neither: their XML is not parsed a second time (a DOM of a large body
  // costs seconds).
  if (!xml.includes('<w:sdt') && !/MERGEFIELD/i.test(xml)) return [];
  const document = new DOMParser({ onError: () => {} }).parseFromString(xml, 'text/xml');
  const fields: ShownField[] = [];
  const add = (name: string, shown: string) => {
    const text = normalizeLine(shown);
    if (fieldName(name) && text && fields.length < MAX_FIELDS) fields.push({ name, shown: text });
  };
  const walk = { left: MAX_WALK_TOTAL };
  for (const control of Array.from(document.getElementsByTagName('w:sdt'))) {
    if (walk.left <= 0) break;
    const properties = child(control, 'w:sdtPr');
    // A gallery (table of contents, cover page) and a check box are not fields to fill.
    if (!properties || child(properties, 'w:docPartObj') || child(properties, 'w14:checkbox')) continue;
    const label =
      child(properties, 'w:tag')?.getAttribute('w:val') ||
      child(properties, 'w:alias')?.getAttribute('w:val');
    const content = child(control, 'w:sdtContent');
    if (label && content) add(label, shownText(content, walk));
  }
  for (const field of Array.from(document.getElementsByTagName('w:fldSimple'))) {
    if (walk.left <= 0) break;
    const name = mergeFieldName(field.getAttribute('w:instr') ?? '');
    if (name) add(name, shownText(field, walk));
  }
  for (const { instruction, result } of complexFields(document.getElementsByTagName('w:r'))) {
    const name = mergeFieldName(instruction);
    if (name) add(name, result);
  }
  return fields;
}

/** `MERGEFIELD Name \* MERGEFORMAT` or `MERGEFIELD "Full Name"` → the field's name. */
function mergeFieldName(instruction: string): string | undefined {
  const match = /^\s*MERGEFIELD\s+(?:"([^"]*)"|([^\s"]+))/i.exec(instruction.slice(0, MAX_INSTRUCTION));
  return match ? (match[1] ?? match[2]) : undefined;
}

function child(element: Element, name: string): Element | undefined {
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE && node.nodeName === name) return node as Element;
  }
  return undefined;
}

/**
 * The text Word shows for an element: its `w:t`, a tab as a tab, a paragraph or line break as
 * a space. Walked in document order, and no further than a variable's text may be long (a
 * control around the whole body is no field to fill), than MAX_WALK nodes, or than what is
 * `left` of the document's walk. Every node is counted, a `w:t`'s text nodes too (its
 * textContent was walked outside the count: 250 nested controls reaching a `w:t` of 100,000
 * children walked it 250 times), and the walk follows siblings rather than listing each node's
 * children (listing a node of 100,000 children is a walk of them).
 */
function shownText(element: Element, walk: { left: number }): string {
  let text = '';
  let walked = 0;
  let node: Node | null = element;
  while (node && text.length <= MAX_VARIABLE_TEXT && walked < MAX_WALK && walk.left > 0) {
    walked += 1;
    walk.left -= 1;
    let inside = false;
    if (node.nodeType === node.TEXT_NODE || node.nodeType === node.CDATA_SECTION_NODE) {
      // Text is read only in a `w:t` (Word puts it nowhere else).
      if (node.parentNode?.nodeName === 'w:t') text += (node as Text).data;
    } else if (node.nodeName === 'w:tab') text += '\t';
    else if (node.nodeName === 'w:br' || node.nodeName === 'w:p') text += ' ';
    else inside = true;
    node = inside && node.firstChild ? node.firstChild : following(node, element);
  }
  // Stopped by a walk limit, the text would be a part of what Word shows.
  if (node && text.length <= MAX_VARIABLE_TEXT) return '';
  return text.length <= MAX_VARIABLE_TEXT ? text : '';
}

/**
 * The node after `node` and all it contains, within `root`: its next sibling, else its parent's,
 * and so on (each parent is left once, so the climb costs no more than the walk down did).
 */
function following(node: Node, root: Node): Node | null {
  for (let at: Node | null = node; at && at !== root; at = at.parentNode) {
    if (at.nextSibling) return at.nextSibling;
  }
  return null;
}

/**
 * The text nodes directly in an element: each run's `w:t` or `w:instrText` is visited once here,
 * and its children once (textContent would walk a run nested in it again for each around it).
 */
function ownText(element: Element): string {
  let text = '';
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === node.TEXT_NODE || node.nodeType === node.CDATA_SECTION_NODE)
      text += (node as Text).data;
  }
  return text;
}

/**
 * Complex fields (`w:fldChar` begin, `w:instrText`, separate, the shown runs, end), read over
 * the runs in document order; a field inside another adds its result to the outer one's too.
 */
function* complexFields(runs: Iterable<Element>): Generator<{ instruction: string; result: string }> {
  const open: { instruction: string; result: string; showing: boolean }[] = [];
  let tooDeep = 0;
  for (const run of Array.from(runs)) {
    for (let node = run.firstChild; node; node = node.nextSibling) {
      if (node.nodeType !== node.ELEMENT_NODE) continue;
      const element = node as Element;
      if (element.nodeName === 'w:fldChar') {
        const kind = element.getAttribute('w:fldCharType');
        if (kind === 'begin') {
          if (open.length < MAX_NESTING) open.push({ instruction: '', result: '', showing: false });
          else tooDeep += 1;
        } else if (kind === 'separate' && open.length && !tooDeep) {
          open.at(-1)!.showing = true;
        } else if (kind === 'end' && tooDeep) {
          tooDeep -= 1;
        } else if (kind === 'end' && open.length) {
          const field = open.pop()!;
          yield { instruction: field.instruction, result: field.result };
        }
      } else if (element.nodeName === 'w:instrText' && open.length && !tooDeep) {
        const field = open.at(-1)!;
        if (!field.showing && field.instruction.length < MAX_INSTRUCTION) {
          field.instruction += ownText(element);
        }
      } else if (element.nodeName === 'w:t' && open.length) {
        const text = ownText(element);
        for (const field of open) {
          if (field.showing && field.result.length <= MAX_VARIABLE_TEXT) field.result += text;
        }
      }
    }
  }
}

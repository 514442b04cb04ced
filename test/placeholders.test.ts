import { describe, expect, it } from 'vitest';
import { toVariables } from '../domain/contracts/analysis/findings.ts';
import { descriptionName } from '../domain/contracts/analysis/placeholders/names.ts';
import { scanPlaceholders } from '../domain/contracts/analysis/placeholders.ts';
import { LONG_DESCRIPTION_LINES, LONG_DESCRIPTION_VARIABLES } from './helpers/long-descriptions.ts';

/** What the answer would hold for `text`: `[kind, name, text]` in order of first appearance. */
const scan = (text: string) => toVariables(text, scanPlaceholders(text)).map((v) => [v.kind, v.name, v.text]);
/** Only the texts found. */
const texts = (text: string) => scan(text).map(([, , found]) => found);

describe('placeholders: template fields', () => {
  it('reads each field convention, with its delimiters as the text', () => {
    expect(
      scan(
        [
          'Between {company} and {{customer_name}}, {{ supplier_name }}, {{buyer.address}},',
          '{{ total | currency }}, {{{raw_terms}}}, <<Customer Name>>, «SupplierLegalName»,',
          '+++INS start_date+++ and {{amount as "0,0.00 CCC"}}, {{ seller.name if seller else "" }}.',
        ].join('\n'),
      ),
    ).toEqual([
      ['placeholder', 'company', '{company}'],
      ['placeholder', 'customer_name', '{{customer_name}}'],
      ['placeholder', 'supplier_name', '{{ supplier_name }}'],
      ['placeholder', 'buyer_address', '{{buyer.address}}'],
      ['placeholder', 'total', '{{ total | currency }}'],
      ['placeholder', 'raw_terms', '{{{raw_terms}}}'],
      ['placeholder', 'customer_name', '<<Customer Name>>'],
      ['placeholder', 'supplier_legal_name', '«SupplierLegalName»'],
      ['placeholder', 'start_date', '+++INS start_date+++'],
      ['placeholder', 'amount', '{{amount as "0,0.00 CCC"}}'],
      ['placeholder', 'seller_name', '{{ seller.name if seller else "" }}'],
    ]);
  });

  it('reads identifiers and descriptions in any alphabet, and names them without accents', () => {
    expect(
      scan(
        [
          'Entre {{ société }} et {société_cliente}, «Raison_Sociale», <<Nom du Client>>, [Nom de la société],',
          '{#if clause_pénale}…{/if} et {% for article in articles_vendus %}.',
        ].join('\n'),
      ),
    ).toEqual([
      ['placeholder', 'societe', '{{ société }}'],
      ['placeholder', 'societe_cliente', '{société_cliente}'],
      ['placeholder', 'raison_sociale', '«Raison_Sociale»'],
      ['placeholder', 'nom_du_client', '<<Nom du Client>>'],
      ['placeholder', 'nom_de_la_societe', '[Nom de la société]'],
      ['condition', 'clause_penale', '{#if clause_pénale}'],
      ['list', 'articles_vendus', '{% for article in articles_vendus %}'],
    ]);
  });

  it('names an identifier in another alphabet by its transliteration: names stay ASCII for every template engine', () => {
    expect(scan('{{ покупатель }}, {{名前}}, [Наименование покупателя], «Имя»')).toEqual([
      ['placeholder', 'pokupatel', '{{ покупатель }}'],
      ['placeholder', 'ming_qian', '{{名前}}'],
      ['placeholder', 'naimenovanie_pokupatelya', '[Наименование покупателя]'],
      ['placeholder', 'imya', '«Имя»'],
    ]);
  });

  it('gives one spelling of a name two entries under one name, and counts each', () => {
    expect(
      toVariables('{{name}} and {{ name }}, {{name}}', scanPlaceholders('{{name}} and {{ name }}, {{name}}')),
    ).toEqual([
      { name: 'name', kind: 'placeholder', text: '{{name}}', occurrences: 2 },
      { name: 'name', kind: 'placeholder', text: '{{ name }}', occurrences: 1 },
    ]);
  });

  it('reads a tag that a PDF wrapped over two lines, but no further', () => {
    expect(
      texts('Pay {total post-money\nshares reserved} and <<Total Due\nBefore Closing>>, not {a\nb\nc}.'),
    ).toEqual(['{total post-money\nshares reserved}', '<<Total Due\nBefore Closing>>']);
  });

  it('leaves JSON, code and stray braces alone', () => {
    expect(
      scan(
        '{"a": 1} function f() { return x; } {x} {} {0.1.Sec} <<1 >> {{!-- note --}} {{> partial}} «Next Record»',
      ),
    ).toEqual([]);
  });
});

describe('placeholders: directives', () => {
  it('reports the subjects of docx-templates commands, never the commands', () => {
    expect(
      scan(
        '{IF has_pilot}Pilot.{END-IF} {IF tier = "gold"}Gold{ELSE}Other{END-IF} ' +
          '{FOR d IN items}{d.name}: {$d.price} {INS $d.qty}{END-FOR d} {ELSEIF !trial}',
      ),
    ).toEqual([
      ['condition', 'has_pilot', '{IF has_pilot}'],
      ['condition', 'tier', '{IF tier = "gold"}'],
      ['list', 'items', '{FOR d IN items}'],
      ['placeholder', 'items_name', '{d.name}'],
      ['placeholder', 'items_price', '{$d.price}'],
      ['placeholder', 'items_qty', '{INS $d.qty}'],
      ['condition', 'trial', '{ELSEIF !trial}'],
    ]);
  });

  it('reports the subjects of Handlebars, Mustache and Accord blocks', () => {
    expect(
      scan(
        '{{#if paid}}Paid{{else if (eq status "late")}}Late{{else}}Open{{/if}} ' +
          '{{#each fees as |fee|}}{{fee.amount}} {{this.label}}{{/each}} {{#unless waived}}x{{/unless}} ' +
          '{{#ulist rates}}{{rate}}%{{/ulist}} {{#optional forceMajeure}}y{{/optional}} {{#olist goods}}{{/olist}} ' +
          '{#if x_flag}a{/if} {#each rows}{/each}',
      ),
    ).toEqual([
      ['condition', 'paid', '{{#if paid}}'],
      ['condition', 'status', '{{else if (eq status "late")}}'],
      ['list', 'fees', '{{#each fees as |fee|}}'],
      ['placeholder', 'fees_amount', '{{fee.amount}}'],
      ['placeholder', 'fees_label', '{{this.label}}'],
      ['condition', 'waived', '{{#unless waived}}'],
      ['list', 'rates', '{{#ulist rates}}'],
      ['placeholder', 'rate', '{{rate}}'],
      ['condition', 'force_majeure', '{{#optional forceMajeure}}'],
      ['list', 'goods', '{{#olist goods}}'],
      ['condition', 'x_flag', '{#if x_flag}'],
      ['list', 'rows', '{#each rows}'],
    ]);
  });

  it('reports the subjects of Jinja statements, and names a loop field after its list', () => {
    expect(
      scan(
        '{% if deal.closed %}c{% elif has_escrow %}e{% else %}o{% endif %}' +
          '{%- for party in parties -%}{{ party.name | upper }}{% endfor %}{# comment #}{{ party.name }}' +
          '{% for k, v in terms.items() %}{{ v }}{% endfor %}',
      ),
    ).toEqual([
      ['condition', 'deal_closed', '{% if deal.closed %}'],
      ['condition', 'has_escrow', '{% elif has_escrow %}'],
      ['list', 'parties', '{%- for party in parties -%}'],
      ['placeholder', 'parties_name', '{{ party.name | upper }}'],
      // After the loop, `party` is no loop variable any more.
      ['placeholder', 'party_name', '{{ party.name }}'],
      ['list', 'terms', '{% for k, v in terms.items() %}'],
      ['placeholder', 'terms_item', '{{ v }}'],
    ]);
  });

  it("reports the subjects of docxtemplater's sections, inverted sections and loop modules", () => {
    expect(
      scan(
        '{#lines}{price}{/lines} {^isFree}Pay.{/isFree} {-w:p clauses}{text}{/clauses} {#hasKitty}{kitty}{/hasKitty}',
      ),
    ).toEqual([
      ['list', 'lines', '{#lines}'],
      ['placeholder', 'price', '{price}'],
      ['condition', 'is_free', '{^isFree}'],
      ['list', 'clauses', '{-w:p clauses}'],
      ['placeholder', 'text', '{text}'],
      ['condition', 'has_kitty', '{#hasKitty}'],
      ['placeholder', 'kitty', '{kitty}'],
    ]);
  });
});

describe('placeholders: Carbone', () => {
  it('reads fields from the data root, loops over items, and conditions as formatters', () => {
    expect(
      scan(
        '{d.customer.name} {d.total:formatC()} {d.cars[i].brand} {d.cars[i+1].brand} ' +
          '{d.vip:ifEQ(true):showBegin}VIP{d.vip:showEnd} {c.now:formatD(YYYY)}',
      ),
    ).toEqual([
      ['placeholder', 'customer_name', '{d.customer.name}'],
      ['placeholder', 'total', '{d.total:formatC()}'],
      ['placeholder', 'cars_brand', '{d.cars[i].brand}'],
      ['condition', 'vip', '{d.vip:ifEQ(true):showBegin}'],
    ]);
  });
});

describe('placeholders: square brackets', () => {
  it('reads names and descriptions of any length, nested parentheses and quotes included', () => {
    expect(
      scan(
        [
          'This Agreement is made on [Effective Date] by [COMPANY NAME] and [insert name of Employee].',
          ...LONG_DESCRIPTION_LINES,
          '[Describe the Services to be provided, including deliverables and milestones]',
        ].join('\n'),
      ),
    ).toEqual([
      ['placeholder', 'effective_date', '[Effective Date]'],
      ['placeholder', 'company_name', '[COMPANY NAME]'],
      ['placeholder', 'employee_name', '[insert name of Employee]'],
      ...LONG_DESCRIPTION_VARIABLES,
      [
        'placeholder',
        'services',
        '[Describe the Services to be provided, including deliverables and milestones]',
      ],
    ]);
  });

  it('reads a description that a PDF broke over two lines', () => {
    const text = 'The Employee reports to [Name and title of the\nperson the Employee reports to].';
    expect(texts(text)).toEqual(['[Name and title of the\nperson the Employee reports to]']);
  });

  it('leaves citations, checkboxes, links, indexes and plural markers alone', () => {
    expect(
      scan(
        'See [1], [2, 3] and [iv]. [ ] Yes [x] No [X] [ x ] [✓]. Read [the terms](https://example.com/terms). ' +
          'items[0], Party[ies], Product[s], ["a", "b"], [{"k": 1}], [^1], [***].',
      ),
    ).toEqual([]);
  });

  it('leaves a caption after its section reference alone, and notes of what was left out', () => {
    expect(
      texts(
        'ARTICLE I [Term]. As set out in Section 2.01 [Calling Card] and Sections 3.1 [Advertising] or 10.2 [Termination for Breach]. [GRAPHIC OMITTED] [Text Redacted] [Confidential Treatment Requested] Payable to [Company Name].',
      ),
    ).toEqual(['[Company Name]']);
  });

  it('leaves editorial notes alone', () => {
    expect(
      scan(
        [
          '[Reserved]',
          '4. [Intentionally omitted.]',
          '[Signature page follows]',
          '[Remainder of page intentionally left blank]',
          'the "Purchaser" [sic]',
          '[Note to Draft: Confirm the cap with the lead investor.]',
          '[NTD: update]',
          '[Abbreviated]',
          '[SEAL]',
          '[Optional]',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('tells an optional clause (a sentence) from a description (a noun phrase)', () => {
    const text = [
      'The Company shall provide an automobile. [The Company shall pay the expenses related to the use and upkeep of the automobile.]',
      '[Each Party agrees that it will not solicit the employees of the other Party for one year after the Term]',
      'The Purchaser pays the Price[, provided that the Seller has delivered the Goods]. [and/or]',
      // A clause holding a blank: the blank is found, the clause is not.
      '[The Supplier will deliver the Goods within [number of days] days of the order.]',
      '[Date on which the Supplier must deliver the Goods]',
    ].join('\n');
    expect(scan(text)).toEqual([
      ['placeholder', 'number_of_days', '[number of days]'],
      ['placeholder', 'supplier_deliver_goods_date', '[Date on which the Supplier must deliver the Goods]'],
    ]);
  });

  it('names blanks by their label, or by the unit after them', () => {
    expect(
      scan(
        [
          'Purchase Amount: $[_____]',
          'Valuation Cap: [●]',
          'Discount\t[•]',
          'Effective Date\t[________]',
          'Notice period: [___] days; the Shares vest over [●] months.',
          'Each Share is sold at a price of $[●] per share.',
        ].join('\n'),
      ),
    ).toEqual([
      ['placeholder', 'purchase_amount', 'Purchase Amount: $[_____]'],
      ['placeholder', 'valuation_cap', 'Valuation Cap: [●]'],
      // A key-terms row: the blank is a cell of its own, and is the text.
      ['placeholder', 'discount', '[•]'],
      ['placeholder', 'effective_date', '[________]'],
      ['placeholder', 'notice_period', 'Notice period: [___]'],
      ['placeholder', 'months', '[●]'],
      ['placeholder', 'price', '$[●]'],
    ]);
  });
});

describe('placeholders: labelled blanks', () => {
  it('reads a label and its blank, a key-terms row and a signature block', () => {
    expect(
      scan(
        [
          'Effective Date: ________',
          'Purchase Price: $__________',
          'Governing Law\t____________',
          'By: ____________ Name: ____________ Title: ____________',
          'The term is ________ months.',
          '________________________',
          // A signature line under a printed name, no label.
          'James Smith ______________________________',
        ].join('\n'),
      ),
    ).toEqual([
      ['placeholder', 'effective_date', 'Effective Date: ________'],
      ['placeholder', 'purchase_price', 'Purchase Price: $__________'],
      ['placeholder', 'governing_law', '____________'],
      ['placeholder', 'name', 'Name: ____________'],
      ['placeholder', 'title', 'Title: ____________'],
    ]);
  });
});

describe('placeholders: names of descriptions', () => {
  it.each([
    ['Company Name', 'company_name'],
    ["Employer's name", 'employer_name'],
    ['Insert date', 'date'],
    ['Name of Employee', 'employee_name'],
    ['Number of shares', 'number_of_shares'],
    ['Full name of the authorized signatory signing for the employer', 'authorized_signatory_full_name'],
    ['Date by which the offer must be accepted', 'offer_accepted_date'],
    ['Amount of the monthly fee (e.g., "$500")', 'monthly_fee_amount'],
    ['State of incorporation; for example, Delaware', 'incorporation_state'],
    ['common shares outstanding pre-money', 'common_shares_outstanding_pre_money'],
  ])('%s → %s', (description, name) => {
    expect(descriptionName(description)).toBe(name);
  });
});

describe('placeholders: linear time', () => {
  // A scan that backtracks or rescans takes hours on a megabyte of these (a quadratic one reads
  // 10^11 characters or more); a linear one takes milliseconds on an idle machine and well under a
  // second on a loaded one. The bound separates the two whatever the load.
  it.each([
    ['['],
    ['{'],
    ['_'],
    ['<'],
    ['+'],
    ['[a'],
    ['[a]'],
    ['{{a'],
    ['{x.y}'],
    ['Label: ['],
    ['{FOR d IN items}'],
    ['{{#each items}}'],
  ])(
    'scans a megabyte of %s in linear time',
    (unit) => {
      const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
      const started = performance.now();
      scanPlaceholders(text);
      expect(performance.now() - started).toBeLessThan(30_000);
    },
    60_000,
  );
});

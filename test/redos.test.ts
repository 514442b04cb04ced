import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { check, type Diagnostics } from 'recheck';
import { parseAst } from 'rolldown/parseAst';
import { describe, expect, it } from 'vitest';
import { projectRoot } from './helpers/processes.ts';

/**
 * Every regular expression of the code base, checked for super-linear backtracking (ReDoS)
 * with recheck: regex literals, `new RegExp(…)` / `RegExp(…)` with a literal or template
 * pattern, and string patterns given to `match`, `matchAll` and `search` (which build a
 * RegExp from them). Zod's `.regex(…)` takes a literal, found as such. Sources are parsed
 * as TypeScript (oxc, through rolldown's `parseAst`), so a `/` that divides is never taken
 * for a pattern and a pattern in a template or type position is never missed.
 *
 * A pattern that cannot be read before run time (a variable given to `new RegExp`) fails the
 * test: write it as a literal. Under `test/` only, a line marked `redos-exempt: <why>` (on
 * the line or the one before) is reported but allowed, for reference patterns kept to
 * compare a fix with (run on short inputs only). Patterns in tests only match the service's
 * own output, so there polynomial backtracking is allowed and only exponential fails.
 */
const SOURCES = [
  'domain/**/*.ts',
  'app/**/*.ts',
  'adapters/**/*.ts',
  'routers/**/*.ts',
  'rest/**/*.ts',
  'entities/**/*.ts',
  'scripts/**/*.ts',
  'bench/**/*.ts',
  'test/**/*.ts',
  'mikro-orm.config.ts',
];

interface Pattern {
  file: string;
  line: number;
  source: string;
  flags: string;
  exempt: boolean;
}

interface Unreadable {
  file: string;
  line: number;
  code: string;
}

type Node = { type?: string; start: number; end: number; [key: string]: unknown };

const STRING_PATTERN_METHODS = new Set(['match', 'matchAll', 'search']);

/** The regular expressions written in one TypeScript source text. */
function findPatterns(file: string, text: string): { patterns: Pattern[]; unreadable: Unreadable[] } {
  const ast = parseAst(text, { lang: 'ts', astType: 'ts' }, file) as unknown as Node;
  const lineStarts = [0];
  for (let i = 0; i < text.length; i += 1) if (text[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  const lines = text.split('\n');
  const exemptAt = (line: number) =>
    file.startsWith('test/') && [lines[line - 1], lines[line - 2]].some((l) => l?.includes('redos-exempt:'));
  const patterns: Pattern[] = [];
  const unreadable: Unreadable[] = [];
  const add = (node: Node, source: string, flags: string) => {
    const line = lineOf(node.start);
    patterns.push({ file, line, source, flags, exempt: exemptAt(line) });
  };
  /** The text of a string or template literal; interpolations read as `x` (they are ids and names). */
  const literalText = (node: Node | undefined): string | null => {
    if (!node) return null;
    if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
    if (node.type === 'TemplateLiteral') {
      const quasis = node.quasis as { value: { cooked: string | null } }[];
      return quasis.map((q) => q.value.cooked ?? '').join('x');
    }
    return null;
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const node = value as Node;
    if (node.type === 'Literal' && node.regex) {
      const { pattern, flags } = node.regex as { pattern: string; flags: string };
      add(node, pattern, flags);
    }
    if (node.type === 'NewExpression' || node.type === 'CallExpression') {
      const callee = node.callee as Node & { name?: string; property?: Node & { name?: string } };
      const args = node.arguments as Node[];
      if (callee.type === 'Identifier' && callee.name === 'RegExp') {
        const source = literalText(args[0]);
        const flags = args[1] ? literalText(args[1]) : '';
        if (source === null || flags === null) {
          const line = lineOf(node.start);
          if (!exemptAt(line)) unreadable.push({ file, line, code: text.slice(node.start, node.end) });
        } else {
          add(node, source, flags);
        }
      } else if (
        callee.type === 'MemberExpression' &&
        STRING_PATTERN_METHODS.has(callee.property?.name ?? '') &&
        args[0]?.type === 'Literal' &&
        typeof args[0].value === 'string'
      ) {
        add(node, args[0].value as string, '');
      }
    }
    for (const key in node) {
      if (key !== 'start' && key !== 'end') visit(node[key]);
    }
  };
  visit(ast);
  return { patterns, unreadable };
}

function sourceFiles(): string[] {
  return globSync(SOURCES, { cwd: projectRoot, exclude: ['**/node_modules/**'] }).sort();
}

function describeFailure(pattern: Pattern, diagnostics: Diagnostics): string {
  const where = `${pattern.file}:${pattern.line} /${pattern.source}/${pattern.flags}`;
  if (diagnostics.status === 'vulnerable') {
    return `${where}: ${diagnostics.complexity.summary}, e.g. ${diagnostics.attack.pattern}`;
  }
  if (diagnostics.status === 'unknown') return `${where}: could not be checked (${diagnostics.error.kind})`;
  return where;
}

/**
 * The fuzzer's own time limits are off: with them, a busy machine made matching look slow and the
 * same pattern was judged polynomial on one run and safe on the next. Its step limits (and seed 0)
 * stay, so a verdict depends on the pattern alone; `timeout` bounds the whole check.
 */
const CHECK_OPTIONS = {
  timeout: 20_000,
  attackTimeout: null,
  incubationTimeout: null,
  seedingTimeout: null,
} as const;

/** recheck on many patterns at once: its native checker runs them in parallel. */
async function checkAll(patterns: Pattern[]): Promise<{ pattern: Pattern; diagnostics: Diagnostics }[]> {
  const unique = new Map<string, Promise<Diagnostics>>();
  return Promise.all(
    patterns.map(async (pattern) => {
      const key = `${pattern.flags}/${pattern.source}`;
      if (!unique.has(key)) unique.set(key, check(pattern.source, pattern.flags, CHECK_OPTIONS));
      return { pattern, diagnostics: await unique.get(key)! };
    }),
  );
}

describe('regular expressions (ReDoS)', () => {
  it('are found in every form they are written in, and only there', () => {
    const sample = [
      'const a = /ab+c/gi; const half = total / 2 / count;',
      'const b = z.string().regex(/^[a-z]+$/, "lower case");',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of a sample program
      "const c = new RegExp('^x(y)$', 'u'); const d = RegExp(`^org/${id}/k$`);",
      "text.match('a.c'); text.search(\"q+\"); text.replace('not a pattern', '');",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of a sample program
      'type T = { p: RegExp }; function f(r = /default/) { return `${/in-template/.source}`; }',
      'const e = new RegExp(dynamic);',
    ].join('\n');
    const { patterns, unreadable } = findPatterns('sample.ts', sample);
    expect(patterns.map((p) => [p.line, p.source, p.flags])).toEqual([
      [1, 'ab+c', 'gi'],
      [2, '^[a-z]+$', ''],
      [3, '^x(y)$', 'u'],
      [3, '^org/x/k$', ''],
      [4, 'a.c', ''],
      [4, 'q+', ''],
      [5, 'default', ''],
      [5, 'in-template', ''],
    ]);
    expect(unreadable.map((u) => u.code)).toEqual(['new RegExp(dynamic)']);
  });

  it('recheck tells a vulnerable pattern from a safe one, with the options the scan uses', async () => {
    const [bad, cubic, good] = await Promise.all([
      check('^(a+)+$', '', CHECK_OPTIONS),
      // The shape of issue 9's placeholder pattern: two quantifiers competing for white space.
      check('(?:^|\\s{2,})\\s*([A-Z][a-z ]{1,50}?)\\s*:?\\s*_{3,}', 'g', CHECK_OPTIONS),
      check('^[a-z][a-z0-9_]*$', '', CHECK_OPTIONS),
    ]);
    expect(bad.status).toBe('vulnerable');
    expect(cubic.status).toBe('vulnerable');
    expect(good.status).toBe('safe');
  });

  it('are all linear, in every source file of the service, its scripts and its tests', async () => {
    const files = sourceFiles();
    const found = files.map((file) => findPatterns(file, readFileSync(path.join(projectRoot, file), 'utf8')));
    const patterns = found.flatMap((f) => f.patterns);
    const unreadable = found.flatMap((f) => f.unreadable);

    // The scan reaches every part of the code base and sees the patterns known to be there.
    for (const folder of [
      'domain/',
      'app/',
      'adapters/',
      'routers/',
      'rest/',
      'scripts/',
      'bench/',
      'test/',
    ]) {
      expect(
        files.some((file) => file.startsWith(folder)),
        folder,
      ).toBe(true);
    }
    expect(files).toContain('mikro-orm.config.ts');
    expect(patterns.length).toBeGreaterThan(100);
    const known = (file: string, source: string) =>
      patterns.some((p) => p.file === file && p.source === source);
    expect(known('app/config/server.ts', '^postgres(ql)?:\\/\\/')).toBe(true);
    // The placeholder scan's patterns (issue 30): names, descriptions, blanks, directives.
    expect(known('domain/contracts/analysis/placeholders/names.ts', '([a-z0-9])([A-Z])')).toBe(true);
    expect(known('domain/contracts/analysis/placeholders/blanks.ts', '[_＿]{3,}')).toBe(true);
    expect(known('domain/contracts/analysis/placeholders/brackets.ts', '^[$€£]?[ _＿●•·….-]*%?$')).toBe(true);
    expect(known('domain/contracts/analysis/placeholders/descriptions.ts', '^[xX✓✔]$')).toBe(true);
    expect(
      known(
        'domain/contracts/analysis/placeholders/template-tags.ts',
        '[\\p{L}_$][\\p{L}\\p{N}_$]*(?:\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*',
      ),
    ).toBe(true);
    expect(known('domain/contracts/analysis/values/typed.ts', '[$€£¥] ?\\d[\\d,.]*')).toBe(true);
    expect(known('rest/dispatch.ts', '\\{(\\w+)\\}')).toBe(true);
    expect(known('test/files.test.ts', '^org/x/images/[0-9a-f-]+/')).toBe(true);

    expect(unreadable.map((u) => `${u.file}:${u.line} ${u.code}`)).toEqual([]);
    const results = await checkAll(patterns);
    const failures = results
      .filter(({ diagnostics }) => diagnostics.status !== 'safe')
      .filter(({ pattern }) => !pattern.exempt)
      // Tests match the service's own output, never a caller's input: there only exponential
      // backtracking fails (a quadratic `.*` in an assertion is harmless); everywhere else, any.
      .filter(
        ({ pattern, diagnostics }) =>
          !(
            pattern.file.startsWith('test/') &&
            diagnostics.status === 'vulnerable' &&
            diagnostics.complexity.type === 'polynomial'
          ),
      )
      .map(({ pattern, diagnostics }) => describeFailure(pattern, diagnostics));
    expect(failures).toEqual([]);
  }, 120_000);
});

import { readFileSync, writeFileSync } from 'node:fs';
import { docxText } from '/work/wt-values/test/fixtures/contracts-corpus/docx-text.ts';
const m = JSON.parse(readFileSync('/work/wt-values/test/fixtures/contracts-corpus/manifest.json', 'utf8'));
for (const d of m.documents) {
  if (d.set !== 'dev' || d.kind !== 'filled') continue;
  const buf = readFileSync(`/work/wt-values/test/fixtures/contracts-corpus/docx/${d.id}.docx`);
  writeFileSync(`/tmp/vtxt/${d.id}.txt`, docxText(buf));
  writeFileSync(`/tmp/vtxt/${d.id}.json`, JSON.stringify(d.expected, null, 1));
}

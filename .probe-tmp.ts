import { parseOffice } from 'officeparser';
import { docxLines } from './adapters/documents/docx-text.ts';
import { joinLines } from './adapters/documents/text-format.ts';
import { docxWithBody, wp, wtable } from './test/helpers/documents.ts';
import { analyzeOffline } from './domain/contracts/analysis/offline-analysis.ts';
const docx = (items: (string | string[][])[]) =>
  docxWithBody(items.map((item) => (typeof item === 'string' ? wp(item) : wtable(item, [3000, 6000]))).join(''));
for (const items of [[
  'ORDER FORM',
  'This Order Form is entered into as of March 3, 2026 between Northwind Analytics, Inc. (the "Customer") and Bluefin Robotics LLC (the "Provider").',
  'Key Terms',
  [['Subscription Term', '12 months'], ['Fees', '$48,000'], ['Billing Contact', '{billing_contact}'], ['Billing Email', '{billing_email}'], ['Go-Live', '{go_live_date}'], ['Support Plan', 'Premier']],
  '1. Payment. The Customer pays each invoice within thirty (30) days of receipt.',
  '2. Notices. Notices to the Customer go to {notice_address}.',
], [
  'This Supply Agreement is made as of April 2, 2026 between Harbor Foods Ltd. (the "Buyer") and Okapi Farms LLC (the "Seller").',
  '1. Price. The Buyer pays $12,000 per shipment [or $15,000 if the Express Option is chosen].',
  'Delivery Date: [Insert date, e.g. January 1, 2025]',
]] as any) {
  const ast = await parseOffice(docx(items), {});
  const text = joinLines(docxLines(ast.content), 1e6);
  console.log(JSON.stringify(text));
  console.log(analyzeOffline(text, []).map((v) => `${v.kind} ${v.name}=${v.text}`));
}

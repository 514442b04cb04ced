// Stands in for tesseract.js (package.json "overrides"; docs/decisions/040-production-install.md).
// officeparser imports tesseract.js only when a document is read with `ocr: true`, which the
// service never asks for: the real package (≈ 50 MB, and language data fetched from a CDN at
// run time) would only be dead weight. Should OCR ever be asked for, it fails loudly here.
exports.createWorker = async () => {
  throw new Error('OCR is not installed in this service (tesseract.js is replaced by a stand-in)');
};

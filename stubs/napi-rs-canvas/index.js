// Stands in for @napi-rs/canvas (package.json "overrides"; docs/decisions/040-production-install.md).
// pdf.js loads it to draw pages (Skia, ≈ 35 MB of native code per platform); the contract reader
// only extracts text, which draws nothing. pdf.js installs `Path2D` from here as a global when it
// loads (and prints a warning without one), so this offers one that, like `createCanvas`, refuses
// to draw: a drawing would fail loudly rather than silently produce nothing.
function notInstalled() {
  throw new Error('Drawing is not installed in this service (@napi-rs/canvas is replaced by a stand-in)');
}

class Path2D {
  constructor() {
    notInstalled();
  }
}

exports.Path2D = Path2D;
exports.createCanvas = notInstalled;

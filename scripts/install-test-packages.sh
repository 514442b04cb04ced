#!/usr/bin/env bash
# `npm test`'s pretest step: the Debian packages whose programs the tests drive as real peers.
#   chromium                          docs page test (a real browser); CHROMIUM_PATH may name another
#   swift, swift-proxy, swift-account,
#   swift-container, swift-object     S3 driver tests (OpenStack Swift with s3api on loopback)
#   libreoffice-writer-nogui          contract import tests (soffice prints a DOCX as the PDF to compare)
#   haproxy                           the cluster test (instances behind a load balancer, as `npm run cluster`)
#   prometheus                        metrics tests (a real Prometheus scrapes; promtool checks the format)
#   poppler-utils                     export tests (pdfinfo, pdftotext, pdffonts read the exported PDF)
#   qpdf                              export tests (the PDF's bookmarks and link annotations, as JSON)
#   libreoffice-impress-nogui         export tests (soffice prints the exported PPTX, one page per slide)
#   ffmpeg                            export tests (ffprobe reads the exported video: streams, chapters, captions)
# When every program is there it only looks (builtins, no apt: well under a second). Otherwise
# it installs what is missing with apt-get (as root, or through sudo without a password), or
# stops with what to do, so that `npm test` never runs with tests that cannot pass.
set -uo pipefail

# program the tests run → the Debian package that ships it
programs=(swift-ring-builder swift-proxy-server swift-account-server swift-container-server swift-object-server soffice haproxy prometheus pdfinfo qpdf ffprobe)
packages=(swift swift-proxy swift-account swift-container swift-object libreoffice-writer-nogui haproxy prometheus poppler-utils qpdf ffmpeg)

missing=()
if [ -n "${CHROMIUM_PATH:-}" ]; then
  if [ ! -x "$CHROMIUM_PATH" ]; then
    echo "install-test-packages: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file." >&2
    exit 1
  fi
elif ! command -v chromium >/dev/null 2>&1; then
  missing+=(chromium)
fi
for i in "${!programs[@]}"; do
  command -v "${programs[$i]}" >/dev/null 2>&1 || missing+=("${packages[$i]}")
done
# soffice is there with Writer alone; printing a PPTX needs Impress (its library).
[ -e /usr/lib/libreoffice/program/libsdlo.so ] || missing+=(libreoffice-impress-nogui)
[ ${#missing[@]} -eq 0 ] && exit 0

fail() {
  {
    echo
    echo "npm test needs Debian packages that are not installed: ${missing[*]}"
    echo "$1"
    echo "Install them, then run npm test again:"
    echo "  apt-get update && apt-get install -y ${missing[*]}   # as root"
    echo "(Chromium may instead be any Chromium or Chrome binary named by CHROMIUM_PATH.)"
    echo
  } >&2
  exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "This machine has no apt-get, so they cannot be installed here."
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  as_root=(sudo -n)
else
  fail "Installing them needs root (this is user $(id -un 2>/dev/null || id -u), without password-less sudo)."
fi

echo "install-test-packages: installing ${missing[*]} (apt-get; once per machine)…" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >&2 ||
  fail "apt-get update failed (is the network or the Debian mirror reachable?)."
"${as_root[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null ||
  fail "apt-get install failed (see its message above)."

# What the tests will look for must now be there.
still=()
[ -n "${CHROMIUM_PATH:-}" ] || command -v chromium >/dev/null 2>&1 || still+=(chromium)
for program in "${programs[@]}"; do
  command -v "$program" >/dev/null 2>&1 || still+=("$program")
done
if [ ${#still[@]} -gt 0 ]; then
  echo "install-test-packages: apt-get reported success, but these are still not on PATH: ${still[*]}" >&2
  exit 1
fi
echo "install-test-packages: done." >&2

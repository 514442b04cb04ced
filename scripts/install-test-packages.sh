#!/usr/bin/env bash
# Installs the Debian packages `npm test` drives as real peers (root, or sudo-less root in CI):
# chromium (docs page test) and OpenStack Swift (S3 driver tests). Does nothing when present.
set -euo pipefail
packages=()
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
command -v swift-proxy-server >/dev/null 2>&1 || packages+=(swift swift-proxy swift-account swift-container swift-object)
if [ ${#packages[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${packages[@]}" >/dev/null
fi

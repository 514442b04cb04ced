#!/usr/bin/env bash
# `npm test`'s pretest step, second part: the npm packages of test/rest-client, a small project of
# its own (openapi-typescript needs TypeScript 5's API, which this project's TypeScript 7 lacks).
# Installed when missing or when its package.json changed; otherwise it only looks.
set -euo pipefail
cd "$(dirname "$0")/../test/rest-client"
marker=node_modules/.package-lock.json
if [ -f "$marker" ] && [ ! package.json -nt "$marker" ] && [ ! package-lock.json -nt "$marker" ]; then
  exit 0
fi
echo "install-rest-client: installing test/rest-client's npm packages…" >&2
npm install --no-audit --no-fund --loglevel=error >&2

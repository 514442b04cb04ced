#!/usr/bin/env bash
# `npm test`'s pretest step, second part, and the first step of `npm run build:client`: the npm
# packages of the two sub-projects with their own TypeScript 5 (openapi-typescript, the client
# generators and the declaration bundler need TypeScript 5's API, which this project's TypeScript 7
# lacks): client/ (the package @deck-service/client) and test/rest-client (generated clients).
# Each is installed from its lock when missing or when its package.json changed; otherwise this only looks.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
for project in client test/rest-client; do
  cd "$root/$project"
  marker=node_modules/.package-lock.json
  if [ -f "$marker" ] && [ ! package.json -nt "$marker" ] && [ ! package-lock.json -nt "$marker" ]; then
    continue
  fi
  echo "install-rest-client: installing $project's npm packages…" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
done

#!/usr/bin/env bash
# A scratch repository, a few entries, and a recall: the main job end to end.
set -euo pipefail
demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
cd "$demo"
git init -q .
git config user.name "Demo User"
git config user.email "demo@example.com"
git commit -q --allow-empty -m "initial commit"
git memory add "LEARNED: OAuth redirect URI must match exactly, trailing slash included" --tag oauth
git memory add "DECISION: Store sessions in Redis, not in the database" --tag sessions
git memory add "FAILURE: Deploys broke when the migration ran before the code" --tag deploy
echo "--- git memory list"
git memory list
if git memory help recall >/dev/null 2>&1; then
  echo "--- git memory recall 'oauth redirect'"
  git memory recall "oauth redirect"
fi
echo "--- the working tree was not touched:"
git status --short --branch

#!/usr/bin/env bash
# npm run demo: runs the built function through kpt on examples/demo-merge and shows what it changed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
command -v kpt >/dev/null || { echo "demo: kpt is not on PATH; install kpt 1.0.0-beta.56 to run the demo" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo/examples/demo-merge" "$work/checkout"
rm -rf "$work/checkout/.expected"
cd "$work/checkout"
git init -q && git add -A && git -c user.name=demo -c user.email=demo@example.invalid commit -qm "checkout as fetched at v1, customised"
echo "\$ kpt fn eval checkout --exec \"node dist/main.js\" -- originDir=upstream-v1 upstreamDir=upstream-v2"
env -u NODE_EXTRA_CA_CERTS kpt fn eval . --exec "node $repo/dist/main.js" --results-dir "$work/results" -- originDir=upstream-v1 upstreamDir=upstream-v2
echo
echo "What the function reported:"
sed -n '/results:/,$p' "$work/results/results.yaml"
echo
echo "What changed in the package (the upstream-v1/ and upstream-v2/ snapshots were consumed):"
git add -A
git -c color.ui=auto diff --cached --stat
git -c color.ui=auto diff --cached -- . ':(exclude)upstream-v1' ':(exclude)upstream-v2'

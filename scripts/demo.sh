#!/usr/bin/env bash
# npm run demo: runs the built function through kpt on examples/demo-merge and shows what it changed;
# then `package-variant sync` creates, publishes and upgrades a PackageVariantSet's downstreams in two
# local deployment repositories, keeping an edit made in one of them.
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

echo
echo "== package-variant sync: a PackageVariantSet over two deployment repositories =="
# Local bare repositories stand in for a git server: a catalog with app/v1 and app/v2 published in
# Porch's layout (examples/first-update), and two deployment repositories labelled tier: edge.
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.invalid GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.invalid
export PACKAGE_VARIANT_CACHE_DIR="$work/cache" PACKAGE_VARIANT_STATE_DIR="$work/state"
mkdir "$work/fleet" && cd "$work/fleet"
git init -q -b main catalog
for v in 1 2; do
  rm -rf catalog/app && cp -r "$repo/examples/first-update/v$v" catalog/app
  git -C catalog add -A
  git -C catalog commit -qm "Approving package revision app/v$v" -m "kpt:{\"package\":\"app\",\"workspaceName\":\"v$v\",\"revision\":\"$v\"}"
  git -C catalog tag "app/v$v"
done
git clone -q --bare catalog catalog.git
for edge in edge1 edge2; do
  git init -q -b main "$edge" && echo "# $edge" >"$edge/README.md"
  git -C "$edge" add -A && git -C "$edge" commit -qm "Initial commit"
  git clone -q --bare "$edge" "$edge.git"
done
cp "$repo/examples/demo-sync/fleet.yaml" .
echo "fleet.yaml:"
sed 's/^/    /' fleet.yaml
# Prints a command of the demo's own as typed, then runs it.
run() {
  echo "\$ $1"
  eval "$1"
}
# sync exits 4 when it made (or planned) changes: the demo goes on.
pv_sync() {
  echo "\$ package-variant sync $*"
  env -u NODE_EXTRA_CA_CERTS node "$repo/dist/main.js" sync "$@" || [ $? -eq 4 ]
}
pv_sync fleet.yaml --dry-run
pv_sync fleet.yaml
echo "# someone edits edge1's draft before it is published: 5 replicas"
run "git clone -q -b drafts/app/packagevariant-1 edge1.git edit1"
run "sed -i 's/replicas: 2/replicas: 5/' edit1/app/deployment.yaml"
run "git -C edit1 commit -qam 'edge1: 5 replicas'"
run "git -C edit1 push -q origin HEAD"
pv_sync fleet.yaml --lifecycle published
pv_sync fleet.yaml
echo "# the set moves to app/v2"
run "sed -i 's/workspaceName: v1/workspaceName: v2/' fleet.yaml"
pv_sync fleet.yaml --lifecycle published
run "git --git-dir edge1.git log --format='%h %s' main"
echo "# edge1's edit is kept, upstream's new image taken"
run "git --git-dir edge1.git show main:app/deployment.yaml | grep -E 'replicas|image'"

#!/usr/bin/env bash
# kpt-oracle-repos.sh — the upstream repositories of a kpt-oracle.sh case, built reproducibly.
#
# Usage: scripts/kpt-oracle-repos.sh ORIGIN_DIR UPSTREAM_DIR OUT_DIR [SUB_ORIGIN_DIR SUB_UPSTREAM_DIR]
#
# Writes OUT_DIR/upstream.git: the package in pkg/, tag v1 = ORIGIN_DIR, tag v2 = UPSTREAM_DIR.
# With the SUB_* directories, also OUT_DIR/sub-upstream.git: a second package in pkg/ whose branch
# main holds SUB_ORIGIN_DIR (commit tagged sub-v1) then SUB_UPSTREAM_DIR.
#
# Git identities, dates and configuration are fixed here, so the same inputs give the same commit
# SHAs wherever the script runs: kpt-oracle.sh records kpt's results with these repositories, and
# the differential tests rebuild them to run package-variant against the same commits.
set -euo pipefail

[[ $# -eq 3 || $# -eq 5 ]] || { echo "usage: $0 ORIGIN_DIR UPSTREAM_DIR OUT_DIR [SUB_ORIGIN_DIR SUB_UPSTREAM_DIR]" >&2; exit 2; }
for d in "$1" "$2" "${4:-$1}" "${5:-$1}"; do [[ -d "$d" ]] || { echo "kpt-oracle-repos: not a directory: $d" >&2; exit 2; }; done
OUT="$3"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd -P)"

LOG="$OUT/.repos.log"
: >"$LOG"
GIT_CALLER=kpt-oracle-repos
# shellcheck source=hermetic-git.sh
source "$(dirname "${BASH_SOURCE[0]}")/hermetic-git.sh"

is_empty_tree() { [[ -z "$(find "$1" \( -type f -o -type l \) -print -quit)" ]]; }
minimal_kptfile() { printf 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n' >"$1/Kptfile"; }

# put SRC_DIR REPO: replace REPO's pkg/ by the contents of SRC_DIR (modes kept, .git dropped).
put() {
  mkdir -p "$2/pkg"
  find "$2/pkg" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
  cp -R -P --preserve=mode -- "$1/." "$2/pkg/"
  rm -rf -- "$2/pkg/.git"
  is_empty_tree "$2/pkg" && minimal_kptfile "$2/pkg"
  return 0
}

# repo NAME V1_DIR V2_DIR TAG1 TAG2: a bare NAME.git whose main holds V1 then V2.
repo() {
  local src="$OUT/$1-src"
  rm -rf -- "$src" "$OUT/$1.git"
  mkdir -p "$src"
  g -C "$src" init -q
  put "$2" "$src"
  commit_all "$src" v1
  g -C "$src" tag "$4"
  put "$3" "$src"
  commit_all "$src" v2
  [[ -z "$5" ]] || g -C "$src" tag "$5"
  g clone -q --bare "$src" "$OUT/$1.git"
  rm -rf -- "$src"
}

repo upstream "$1" "$2" v1 v2
if [[ $# -eq 5 ]]; then repo sub-upstream "$4" "$5" sub-v1 ''; fi
rm -f -- "$LOG"

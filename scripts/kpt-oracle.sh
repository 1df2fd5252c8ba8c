#!/usr/bin/env bash
# kpt-oracle.sh — drive the real kpt binary as a three-way-merge oracle.
#
# Usage: scripts/kpt-oracle.sh ORIGIN_DIR UPSTREAM_DIR LOCAL_DIR OUT_DIR [STRATEGY]
#
#   ORIGIN_DIR    package as it was when LOCAL was fetched (upstream v1)
#   UPSTREAM_DIR  new upstream package (upstream v2)
#   LOCAL_DIR     the locally edited package (copied verbatim over the fetched v1)
#   OUT_DIR       where the updated package is written (created; must be empty)
#   STRATEGY      resource-merge (default) | fast-forward | force-delete-replace
#
# Produces what `kpt pkg update pkg@v2 --strategy STRATEGY` produces for a
# package fetched from v1 and then edited into LOCAL_DIR. Git identities,
# dates and configuration are fixed, so the same inputs give byte-identical
# output (including the upstreamLock commit SHAs). The scratch repository URL
# in the output Kptfile(s) is rewritten to file:///kpt-oracle/upstream.
#
# Exit codes:
#   0  kpt pkg update succeeded; OUT_DIR holds the updated package
#   1  the script itself failed (including `kpt pkg get` of ORIGIN failing)
#   2  usage error (bad arguments, missing input dirs, non-empty OUT_DIR)
#   3  kpt pkg update failed ("kpt refused"); kpt's output is on stderr and
#      OUT_DIR holds whatever kpt left in the package
#
# Set KPT_ORACLE_FETCHED_DIR=DIR to also get the package exactly as `kpt pkg get`
# wrote it (before LOCAL replaces it) in DIR (created; must not exist).
# Set KPT_ORACLE_VERBOSE=1 to echo kpt's and git's output on success too.
# Set KPT_ORACLE_KEEP_SCRATCH=1 to keep the scratch directory (path on stderr).
# Set KPT_ORACLE_LOCAL_OUT=DIR to also get the package as it was committed before the update (the
#   fetched Kptfiles with their upstream and lock spliced into LOCAL's), URLs rewritten as in OUT_DIR.
# Set KPT_ORACLE_SUB=REL, KPT_ORACLE_SUB_ORIGIN=DIR and KPT_ORACLE_SUB_UPSTREAM=DIR for an independent
#   subpackage: a second repository (file:///kpt-oracle/sub-upstream in the output) whose branch main
#   holds SUB_ORIGIN; `kpt pkg get` puts it at pkg/REL, then main moves on to SUB_UPSTREAM, so the
#   update takes it from SUB_ORIGIN to SUB_UPSTREAM. LOCAL_DIR holds the subpackage's local version.
#
# The repositories come from scripts/kpt-oracle-repos.sh, which tests run to get the same commits.

set -euo pipefail

readonly ORACLE_URL='file:///kpt-oracle/upstream'
readonly SUB_ORACLE_URL='file:///kpt-oracle/sub-upstream'
readonly REPOS_SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/kpt-oracle-repos.sh"

usage() {
  echo "usage: $0 ORIGIN_DIR UPSTREAM_DIR LOCAL_DIR OUT_DIR [resource-merge|fast-forward|force-delete-replace]" >&2
  exit 2
}

die() {
  echo "kpt-oracle: $*" >&2
  exit 1
}

[[ $# -eq 4 || $# -eq 5 ]] || usage
STRATEGY="${5:-resource-merge}"
case "$STRATEGY" in
  resource-merge | fast-forward | force-delete-replace) ;;
  *) echo "kpt-oracle: unknown strategy '$STRATEGY'" >&2; usage ;;
esac

abs_dir() { # resolve an existing directory to a physical absolute path
  [[ -d "$1" ]] || { echo "kpt-oracle: not a directory: $1" >&2; exit 2; }
  (cd "$1" && pwd -P)
}

ORIGIN_DIR="$(abs_dir "$1")"
UPSTREAM_DIR="$(abs_dir "$2")"
LOCAL_DIR="$(abs_dir "$3")"
SUB="${KPT_ORACLE_SUB:-}"
if [[ -n "$SUB" ]]; then
  SUB_ORIGIN_DIR="$(abs_dir "${KPT_ORACLE_SUB_ORIGIN:?KPT_ORACLE_SUB needs KPT_ORACLE_SUB_ORIGIN}")"
  SUB_UPSTREAM_DIR="$(abs_dir "${KPT_ORACLE_SUB_UPSTREAM:?KPT_ORACLE_SUB needs KPT_ORACLE_SUB_UPSTREAM}")"
fi

if [[ -e "$4" ]]; then
  [[ -d "$4" ]] || { echo "kpt-oracle: OUT_DIR exists and is not a directory: $4" >&2; exit 2; }
  if [[ -n "$(ls -A "$4")" ]]; then
    echo "kpt-oracle: OUT_DIR is not empty: $4" >&2
    exit 2
  fi
else
  mkdir -p "$4"
fi
OUT_DIR="$(abs_dir "$4")"

command -v kpt >/dev/null 2>&1 || die "kpt not found on PATH"
command -v git >/dev/null 2>&1 || die "git not found on PATH"

# --- scratch dir and hermetic environment ---------------------------------

SCRATCH="$(cd "$(mktemp -d "${TMPDIR:-/tmp}/kpt-oracle.XXXXXXXX")" && pwd -P)"
cleanup() {
  if [[ "${KPT_ORACLE_KEEP_SCRATCH:-}" == 1 ]]; then
    echo "kpt-oracle: scratch kept at $SCRATCH" >&2
  else
    rm -rf -- "$SCRATCH"
  fi
}
trap cleanup EXIT

mkdir -p "$SCRATCH/home" "$SCRATCH/xdg-config" "$SCRATCH/xdg-cache" \
  "$SCRATCH/xdg-data" "$SCRATCH/kpt-cache" "$SCRATCH/tmp"

# Nothing may leak in from the caller's git environment (e.g. when run from a
# git hook) or touch the user's ~/.kpt, ~/.gitconfig, caches.
export HOME="$SCRATCH/home"
export XDG_CONFIG_HOME="$SCRATCH/xdg-config"
export XDG_CACHE_HOME="$SCRATCH/xdg-cache"
export XDG_DATA_HOME="$SCRATCH/xdg-data"
export KPT_CACHE_DIR="$SCRATCH/kpt-cache"
# kpt leaves empty $TMPDIR/kpt-get-NNN directories behind on every get/update.
export TMPDIR="$SCRATCH/tmp"
export GIT_CEILING_DIRECTORIES="$SCRATCH"

LOG="$SCRATCH/log"
: >"$LOG"
GIT_CALLER=kpt-oracle
# shellcheck source=hermetic-git.sh
source "$(dirname "${BASH_SOURCE[0]}")/hermetic-git.sh"

# Copy the contents of $1 into directory $2 (hidden files included). Modes and
# symlinks are kept; timestamps are not (see commit_all).
copy_contents() {
  cp -R -P --preserve=mode -- "$1/." "$2/"
}

# --- 1. upstream repositories (scripts/kpt-oracle-repos.sh) ----------------
if [[ -n "$SUB" ]]; then
  bash "$REPOS_SCRIPT" "$ORIGIN_DIR" "$UPSTREAM_DIR" "$SCRATCH" "$SUB_ORIGIN_DIR" "$SUB_UPSTREAM_DIR" >>"$LOG" 2>&1 \
    || { cat "$LOG" >&2; die "building the upstream repositories failed"; }
else
  bash "$REPOS_SCRIPT" "$ORIGIN_DIR" "$UPSTREAM_DIR" "$SCRATCH" >>"$LOG" 2>&1 \
    || { cat "$LOG" >&2; die "building the upstream repository failed"; }
fi

# --- 2. downstream repository: kpt pkg get v1 ----------------------------

DOWN="$SCRATCH/downstream"
mkdir -p "$DOWN"
g -C "$DOWN" init -q

if ! (cd "$DOWN" && kpt pkg get "file://$SCRATCH/upstream.git/pkg@v1" pkg) >>"$LOG" 2>&1; then
  cat "$LOG" >&2
  die "kpt pkg get of ORIGIN failed"
fi
PKG="$DOWN/pkg"
[[ -f "$PKG/Kptfile" ]] || die "kpt pkg get produced no Kptfile"
if [[ -n "$SUB" ]]; then
  # The subpackage is fetched while main holds SUB_ORIGIN; main then moves on to SUB_UPSTREAM.
  SUB_REPO="$SCRATCH/sub-upstream.git"
  SUB_V2="$(git -C "$SUB_REPO" rev-parse refs/heads/main)"
  g -C "$SUB_REPO" update-ref refs/heads/main "$(git -C "$SUB_REPO" rev-parse refs/tags/sub-v1)"
  mkdir -p "$(dirname "$PKG/$SUB")"
  if ! (cd "$DOWN" && kpt pkg get "file://$SUB_REPO/pkg@main" "pkg/$SUB") >>"$LOG" 2>&1; then
    cat "$LOG" >&2
    die "kpt pkg get of the subpackage failed"
  fi
  g -C "$SUB_REPO" update-ref refs/heads/main "$SUB_V2"
fi
commit_all "$DOWN" "kpt pkg get v1"
if [[ -n "${KPT_ORACLE_FETCHED_DIR:-}" ]]; then
  mkdir -- "$KPT_ORACLE_FETCHED_DIR" || die "cannot create KPT_ORACLE_FETCHED_DIR $KPT_ORACLE_FETCHED_DIR"
  copy_contents "$PKG" "$KPT_ORACLE_FETCHED_DIR"
fi

# --- 3. replace the fetched content by LOCAL ------------------------------

FETCHED="$SCRATCH/fetched"
mkdir -p "$FETCHED"
cp -- "$PKG/Kptfile" "$FETCHED/root.Kptfile"
[[ -z "$SUB" ]] || cp -- "$PKG/$SUB/Kptfile" "$FETCHED/sub.Kptfile"
find "$PKG" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +
copy_contents "$LOCAL_DIR" "$PKG"
rm -rf -- "$PKG/.git"

# splice FETCHED_KPTFILE TARGET_KPTFILE: keep TARGET verbatim except for the top-level `upstream`
# and `upstreamLock` blocks, which come from the fetched Kptfile. Replaced in place when TARGET has
# them; otherwise inserted after `metadata` (upstream) and after `upstream` (upstreamLock), which is
# where kpt puts them. Without a TARGET, the fetched Kptfile is used as it is.
splice() {
  if [[ ! -f "$2" ]]; then
    mkdir -p "$(dirname "$2")"
    cp -- "$1" "$2"
    return 0
  fi
  awk '
    function keyof(line,   k) {
      if (line ~ /^[A-Za-z_][A-Za-z0-9_.-]*[ \t]*:([ \t]|$)/) {
        k = line; sub(/[ \t]*:.*$/, "", k); return k
      }
      if (line ~ /^$/ || line ~ /^[ \t]/ || line ~ /^-([ \t]|$)/) return "\001cont"
      return "\001other"   # comments, ---, anything else at column 0
    }
    FNR == 1 { file++ }
    file == 1 {              # fetched Kptfile: collect the two blocks
      k = keyof($0)
      if (k != "\001cont") cur = k
      if (cur == "upstream" || cur == "upstreamLock") blk[cur] = blk[cur] $0 "\n"
      next
    }
    {                        # local Kptfile: split into top-level blocks
      k = keyof($0)
      if (k != "\001cont" || n == 0) { n++; bkey[n] = (k == "\001cont" ? "\001other" : k); btext[n] = "" }
      btext[n] = btext[n] $0 "\n"
      if (bkey[n] == "upstream") hasUp = 1
      if (bkey[n] == "upstreamLock") hasLock = 1
    }
    END {
      emittedUp = hasUp; emittedLock = hasLock
      for (i = 1; i <= n; i++) {
        if (bkey[i] == "upstream" || bkey[i] == "upstreamLock") printf "%s", blk[bkey[i]]
        else printf "%s", btext[i]
        if (bkey[i] == "metadata" && !emittedUp) { printf "%s", blk["upstream"]; emittedUp = 1; justUp = 1 }
        if ((bkey[i] == "upstream" || justUp) && !emittedLock) { printf "%s", blk["upstreamLock"]; emittedLock = 1 }
        justUp = 0
      }
      if (!emittedUp) printf "%s", blk["upstream"]
      if (!emittedLock) printf "%s", blk["upstreamLock"]
    }
  ' "$1" "$2" >"$SCRATCH/merged.Kptfile" \
    || die "could not splice upstream sections into $2"
  cp -- "$SCRATCH/merged.Kptfile" "$2"
}
splice "$FETCHED/root.Kptfile" "$PKG/Kptfile"
# A subpackage LOCAL deleted stays deleted.
[[ -z "$SUB" || ! -d "$PKG/$SUB" ]] || splice "$FETCHED/sub.Kptfile" "$PKG/$SUB/Kptfile"

commit_all "$DOWN" "local edits"

sed_escape() { printf '%s' "$1" | sed -e 's/[]\/$*.^[]/\\&/g'; }
# Scratch repository URLs in Kptfiles become the fixed oracle URLs.
rewrite_urls() {
  local up_re sub_re
  up_re="$(sed_escape "file://$SCRATCH/upstream")"
  sub_re="$(sed_escape "file://$SCRATCH/sub-upstream")"
  while IFS= read -r -d '' kf; do
    sed -i -e "s/${sub_re}\(\.git\)\{0,1\}/$(sed_escape "$SUB_ORACLE_URL")/g" \
      -e "s/${up_re}\(\.git\)\{0,1\}/$(sed_escape "$ORACLE_URL")/g" "$kf"
  done < <(find "$1" -name Kptfile -type f -print0)
}

if [[ -n "${KPT_ORACLE_LOCAL_OUT:-}" ]]; then
  mkdir -p "$KPT_ORACLE_LOCAL_OUT"
  copy_contents "$PKG" "$KPT_ORACLE_LOCAL_OUT"
  rewrite_urls "$KPT_ORACLE_LOCAL_OUT"
fi

# --- 4. kpt pkg update ----------------------------------------------------

UPDATE_LOG="$SCRATCH/update.log"
kpt_rc=0
(cd "$DOWN" && kpt pkg update "pkg@v2" --strategy "$STRATEGY") >"$UPDATE_LOG" 2>&1 || kpt_rc=$?

# --- 5. copy out, rewrite the scratch URL ---------------------------------

if [[ -d "$PKG" ]]; then
  copy_contents "$PKG" "$OUT_DIR"
fi

rewrite_urls "$OUT_DIR"

if grep -rqF -- "$SCRATCH" "$OUT_DIR" 2>/dev/null; then
  echo "kpt-oracle: warning: output still mentions the scratch path $SCRATCH" >&2
fi

if [[ $kpt_rc -ne 0 ]]; then
  cat "$UPDATE_LOG" >&2
  echo "kpt-oracle: kpt pkg update --strategy $STRATEGY failed (exit $kpt_rc)" >&2
  exit 3
fi

if [[ "${KPT_ORACLE_VERBOSE:-}" == 1 ]]; then
  cat "$LOG" "$UPDATE_LOG" >&2
fi
exit 0

# Sourced by the oracle scripts: git that depends on nobody's configuration, with fixed identities
# and dates, so the same inputs give the same commits everywhere. `g` logs to $LOG and, on failure,
# prints the log and exits 1 naming $GIT_CALLER.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES \
  GIT_NAMESPACE GIT_PREFIX GIT_COMMON_DIR GIT_CONFIG GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_TEMPLATE_DIR
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
export GIT_AUTHOR_NAME='kpt-oracle' GIT_AUTHOR_EMAIL='kpt-oracle@example.invalid'
export GIT_COMMITTER_NAME='kpt-oracle' GIT_COMMITTER_EMAIL='kpt-oracle@example.invalid'
export GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z'
export TZ=UTC LC_ALL=C

g() {
  git -c init.defaultBranch=main -c core.autocrlf=false -c core.fileMode=true \
    -c commit.gpgSign=false -c tag.gpgSign=false -c core.hooksPath=/dev/null \
    "$@" >>"$LOG" 2>&1 || { cat "$LOG" >&2; echo "${GIT_CALLER:-git}: git $* failed" >&2; exit 1; }
}

# Commit the whole work tree of repo $1. The index is rebuilt from scratch so git hashes every file:
# with a stale index, git's stat-based change detection can miss a same-size file copied in within
# the same timestamp granularity.
commit_all() {
  rm -f -- "$1/.git/index"
  g -C "$1" add -A
  g -C "$1" commit -q --allow-empty -m "$2"
}

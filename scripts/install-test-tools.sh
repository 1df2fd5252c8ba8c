#!/usr/bin/env bash
# Tools some suites run besides kpt and git, built from the Go module proxy into a cache of the
# project's own (never onto PATH): mikefarah's yq v4, which CI images such as GitHub's runners carry,
# runs the status gate the README gives (test/sync/ci-snippets.test.ts). Without Go it says so and
# exits 0; the suites that need the tools then skip with one line.
set -euo pipefail
YQ_MODULE=github.com/mikefarah/yq/v4
YQ_VERSION=v4.54.3
tools="${PV_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/package-variant/tools}"
if ! command -v go >/dev/null 2>&1; then
  echo "install-test-tools: go is not on PATH; the suites that need yq v4 will be skipped"
  exit 0
fi
want="yq (https://github.com/mikefarah/yq/) version $YQ_VERSION"
if [ -x "$tools/bin/yq" ] && [ "$("$tools/bin/yq" --version 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p "$tools/bin"
# A proxy that cannot be reached leaves the gate's suite skipped (it says why), not CI red.
if GOBIN="$tools/bin" go install "$YQ_MODULE@$YQ_VERSION"; then
  echo "install-test-tools: built yq $YQ_VERSION into $tools/bin"
else
  echo "install-test-tools: could not build yq $YQ_VERSION (above); the suites that need it will be skipped"
fi

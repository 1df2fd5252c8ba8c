#!/usr/bin/env bash
# Builds the project's Dockerfile into localhost/package-variant:test with podman, on a Debian machine
# that has no Docker engine and reaches no image registry, so that kpt can run the image
# (KPT_FN_RUNTIME=podman). Safe to run again: it changes only what is missing or different, and says
# so on a line starting "build-test-image: changed".
#
# On the machine it may:
#   - install the Debian packages podman, buildah, runc and jq;
#   - write an OCI runtime wrapper (WRAPPER below) and a podman drop-in (CONF below) that selects it;
#   - build the base image localhost/package-variant-node-base:<node version> from this machine's
#     own node, npm and the libraries they need, and the image localhost/package-variant:test.
#
# Exit codes: 0 built; 3 this machine cannot install or run podman (the last line says why: CI then
# skips the image suite with that line); anything else is a real failure (the Dockerfile or the
# build is broken).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
readonly IMAGE=localhost/package-variant:test
readonly PACKAGES=(podman buildah runc jq)
readonly WRAPPER=/usr/local/lib/package-variant/runc-no-rlimits
readonly CONF=/etc/containers/containers.conf.d/50-package-variant.conf

say() { echo "build-test-image: $*"; }
changed() { say "changed: $*"; }
unavailable() {
  echo "build-test-image: podman unavailable: $*" >&2
  exit 3
}

# Writes stdin to $1 (mode $2) unless the file already holds exactly that.
install_text() {
  local target=$1 mode=$2 text
  text=$(cat)
  if [[ -f $target && "$(cat "$target")" == "$text" ]]; then return 1; fi
  mkdir -p "$(dirname "$target")"
  printf '%s\n' "$text" >"$target"
  chmod "$mode" "$target"
}

[[ $(id -u) == 0 ]] || unavailable "installing and configuring podman needs root (uid $(id -u))"

# --- Debian packages ---------------------------------------------------------------------------------
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$package")
done
if ((${#missing[@]})); then
  apt_log=$(mktemp)
  apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >"$apt_log" 2>&1; }
  # A fresh machine may have no package lists yet; update only then, it is the slow part.
  if ! apt_install; then
    { apt-get update >"$apt_log" 2>&1 && apt_install; } || unavailable "apt-get could not install ${missing[*]}: $(tail -n 1 "$apt_log")"
  fi
  rm -f "$apt_log"
  changed "installed Debian packages ${missing[*]}"
fi

# --- the OCI runtime wrapper ------------------------------------------------------------------------
# podman as root asks the runtime to set RLIMIT_NOFILE and RLIMIT_NPROC in the container's init (its
# defaults, which default_ulimits = [] below turns off, and whatever --ulimit asks for); this VM
# forbids setting them at all, even lower (runc and crun both fail), so the wrapper removes
# process.rlimits from the bundle's config.json before handing over to the real runc.
runc=$(command -v runc)
jq=$(command -v jq)
if install_text "$WRAPPER" 0755 <<EOF; then changed "wrote the OCI runtime wrapper $WRAPPER"; fi
#!/bin/sh
# Written by package-variant's scripts/build-test-image.sh. An OCI runtime for podman: removes
# process.rlimits from the bundle's config.json (this machine forbids setting them in a container's
# init), then runs $runc with the same arguments.
set -eu
subcommand='' bundle='' expect_bundle=''
for arg in "\$@"; do
  if [ -n "\$expect_bundle" ]; then bundle=\$arg; expect_bundle=; continue; fi
  case \$arg in
    create|run) subcommand=\$arg ;;
    --bundle|-b) expect_bundle=1 ;;
    --bundle=*|-b=*) bundle=\${arg#*=} ;;
  esac
done
# As runc: the bundle is --bundle, else the working directory.
if [ -n "\$subcommand" ] && [ -f "\${bundle:-.}/config.json" ]; then
  config=\${bundle:-.}/config.json
  $jq -c 'del(.process.rlimits)' "\$config" >"\$config.without-rlimits"
  mv "\$config.without-rlimits" "\$config"
fi
exec $runc "\$@"
EOF

# A drop-in of its own (Debian 12's podman 4.3 reads containers.conf.d), so no existing
# containers.conf is edited.
if install_text "$CONF" 0644 <<EOF; then changed "wrote $CONF (runtime runc = $WRAPPER, cgroupfs, no default ulimits)"; fi
# Written by package-variant's scripts/build-test-image.sh: podman runs containers through a runc
# wrapper that drops rlimits, which this machine forbids a container's init to set; cgroups are
# managed directly, as systemd is not this machine's init.
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"

[engine.runtimes]
runc = ["$WRAPPER"]
EOF

podman_error=$(podman info 2>&1 >/dev/null) || unavailable "podman info failed: $(tail -n 1 <<<"$podman_error")"

# --- the base image: this machine's node and npm, FROM scratch --------------------------------------
node=$(command -v node)
node_version=$(node --version)
base=localhost/package-variant-node-base:${node_version#v}
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
sh=$(readlink -f /bin/sh)
env=$(readlink -f "$(command -v env)")
ca_bundle=/etc/ssl/certs/ca-certificates.crt
[[ -f $ca_bundle ]] || { echo "build-test-image: $ca_bundle is missing" >&2; exit 1; }

libraries=$(ldd "$node" "$sh" "$env" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' | sort -u)
# Everything goes under /usr with /bin, /lib and /lib64 linked to it, as on a merged-/usr Debian,
# so the loader finds the libraries in its default directories whatever this machine's layout.
containerfile=$(cat <<EOF
FROM scratch
COPY rootfs/ /
ENV PATH=/usr/local/bin:/usr/bin:/bin
CMD ["node"]
EOF
)
recipe=$(printf '%s\n' "$containerfile" "$node" "$node_version" "$npm_dir" "$(jq -r .version "$npm_dir/package.json")" "$sh" "$env" "$libraries" "$(sha256sum "$ca_bundle")" | sha256sum | cut -c1-16)
if [[ $(podman image inspect --format '{{index .Labels "package-variant.base-recipe"}}' "$base" 2>/dev/null) == "$recipe" ]]; then
  say "$base is up to date; not rebuilt"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  rootfs=$work/rootfs
  mkdir -p "$rootfs"/usr/{bin,lib,lib64} "$rootfs"/usr/lib/node_modules "$rootfs"/{etc/ssl/certs,tmp,root} "$rootfs"/usr/etc
  ln -s usr/bin "$rootfs/bin"
  ln -s usr/lib "$rootfs/lib"
  ln -s usr/lib64 "$rootfs/lib64"
  chmod 1777 "$rootfs/tmp"
  chmod 0700 "$rootfs/root"
  for library in $libraries; do
    dir=$(readlink -f "$(dirname "$library")")
    mkdir -p "$rootfs/usr${dir#/usr}"
    cp -L "$library" "$rootfs/usr${dir#/usr}/$(basename "$library")"
  done
  cp -L "$node" "$rootfs/usr/bin/node"
  cp "$sh" "$rootfs/usr/bin/sh"
  cp "$env" "$rootfs/usr/bin/env"
  cp -a "$npm_dir" "$rootfs/usr/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/bin/npm"
  cp -L "$ca_bundle" "$rootfs$ca_bundle"
  # The CA bundle is for npm ci behind this machine's TLS-intercepting proxy, so it goes in npm's
  # global config ($prefix/etc/npmrc, prefix /usr for /usr/bin/node), not in NODE_EXTRA_CA_CERTS:
  # every node start, the function's too, would pay about 50 ms to load it.
  echo "cafile=$ca_bundle" >"$rootfs/usr/etc/npmrc"
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >"$rootfs/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nobody:x:65534:' >"$rootfs/etc/group"
  printf '%s\nLABEL package-variant.base-recipe=%s\n' "$containerfile" "$recipe" >"$work/Containerfile"
  podman build --quiet --isolation=chroot -t "$base" -f "$work/Containerfile" "$work" >/dev/null \
    || unavailable "podman could not build the base image $base"
  rm -rf "$work"
  trap - EXIT
  changed "built the base image $base ($(podman image inspect --format '{{.Size}}' "$base") bytes)"
fi

# The runtime, the wrapper and the base together: kpt runs functions as nobody without a network.
smoke_error=$(podman run --rm --network none --user nobody "$base" node -e 'process.exit(process.getuid() === 65534 ? 0 : 1)' 2>&1) \
  || unavailable "podman cannot run a container here: $(tail -n 1 <<<"$smoke_error")"

# --- the project's image ----------------------------------------------------------------------------
previous=$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
podman build --isolation=chroot --build-arg "NODE_IMAGE=$base" -t "$IMAGE" -f "$repo/Dockerfile" "$repo"
current=$(podman image inspect --format '{{.Id}}' "$IMAGE")
if [[ $current == "$previous" ]]; then
  say "$IMAGE is unchanged (${current:0:12})"
else
  changed "tagged $IMAGE (${current:0:12})"
  # The image it replaces is left untagged; remove it unless something still uses it.
  if [[ -n $previous ]] && podman image rm "$previous" >/dev/null 2>&1; then changed "removed the previous $IMAGE (${previous:0:12})"; fi
fi

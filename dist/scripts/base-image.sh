#!/usr/bin/env bash
# A base image for Weft's image tests, made here with no registry and no Docker engine: Debian bookworm
# (debootstrap, minbase) plus openjdk-17-jre-headless, packed as a docker-save tarball, which Jib takes
# as a base with from.image = tar://FILE.
#
#   base-image.sh build     build once, cache $WEFT_CACHE_DIR/base/weft-base.tar (default ~/.cache/weft; idempotent)
#   base-image.sh path      print the tarball's path (exit 1 when it is not built)
#
# Needs root, debootstrap (installed with apt-get when missing) and the Debian mirror this machine's apt
# uses. Takes a few minutes the first time; afterwards it only says where the cached tarball is.
set -euo pipefail

CACHE=${WEFT_CACHE_DIR:-$HOME/.cache/weft}/base  # the one cache rule: .ci/run, the scripts and dist/pom.xml
OUT=$CACHE/weft-base.tar
WORK=$CACHE/build
SUITE=bookworm
TAG=weft-base:$SUITE-jre17

log() { echo "base-image.sh: $*" >&2; }

mirror() { # the Debian mirror of this machine's apt sources (deb822 or one-line), else deb.debian.org
  local m
  m=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | grep debian | head -1 || true)
  [[ -n $m ]] || m=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | grep debian | head -1 || true)
  echo "${m:-http://deb.debian.org/debian}"
}

in_root() { chroot "$WORK/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

make_root() {
  local root=$WORK/root m
  m=$(mirror)
  rm -rf "$root" && mkdir -p "$root"
  log "debootstrap $SUITE from $m"
  debootstrap --variant=minbase "$SUITE" "$root" "$m" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
  mount -t proc proc "$root/proc"
  trap 'umount "$WORK/root/proc" 2>/dev/null || true' EXIT
  # libtorch's natives need only libc, libm and libstdc++ from the system (minbase has them; its jar
  # brings libgomp, libgfortran and libquadmath)
  in_root apt-get -qq update
  in_root apt-get -qq install -y --no-install-recommends openjdk-17-jre-headless >"$WORK/apt.log" 2>&1 \
    || { tail -20 "$WORK/apt.log" >&2; exit 1; }
  in_root apt-get -qq clean
  umount "$root/proc"; trap - EXIT
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/usr/share/doc/* "$root"/usr/share/man/* \
    "$root"/var/log/*.log "$root"/tmp/* "$root"/root/.cache
  # files a container runtime bind-mounts over; an empty one must exist under a read-only root
  : > "$root/etc/hosts"; : > "$root/etc/resolv.conf"
  echo "weft:x:1000:1000:weft:/tmp:/usr/sbin/nologin" >> "$root/etc/passwd"
  echo "weft:x:1000:" >> "$root/etc/group"
}

# One layer, docker-save layout: manifest.json, the config, LAYER/layer.tar.
pack() {
  local img=$WORK/image root=$WORK/root
  rm -rf "$img" && mkdir -p "$img/layer"
  tar --numeric-owner --xattrs -C "$root" -cf "$img/layer/layer.tar" .
  local diff java_home
  diff=$(sha256sum "$img/layer/layer.tar" | cut -d' ' -f1)
  java_home=$(cd "$root" && dirname "$(dirname "$(readlink -f usr/bin/java | sed "s|^$root||")")")
  cat > "$img/config.json" <<JSON
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z",
 "config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=$java_home","LANG=C.UTF-8"]},
 "rootfs":{"type":"layers","diff_ids":["sha256:$diff"]}}
JSON
  echo "[{\"Config\":\"config.json\",\"RepoTags\":[\"$TAG\"],\"Layers\":[\"layer/layer.tar\"]}]" > "$img/manifest.json"
  tar -C "$img" -cf "$OUT.tmp" manifest.json config.json layer
  mv "$OUT.tmp" "$OUT"
}

build() {
  if [[ -f $OUT ]]; then log "cached: $OUT"; return 0; fi
  # not root: nothing to build, and the image test (which needs root too) skips and says why
  [[ $(id -u) == 0 ]] || { log "needs root (debootstrap, chroot); not built"; return 0; }
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
  mkdir -p "$WORK"
  local t0=$SECONDS
  make_root
  pack
  rm -rf "$WORK"
  log "built: $OUT ($(du -m "$OUT" | cut -f1) MB, $((SECONDS - t0)) s)"
}

case "${1:-}" in
  build) build ;;
  path) [[ -f $OUT ]] && echo "$OUT" ;;
  *) echo "usage: $0 build|path" >&2; exit 2 ;;
esac

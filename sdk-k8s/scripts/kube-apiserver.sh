#!/usr/bin/env bash
# A real Kubernetes API server (kube-apiserver 1.20.2 + etcd 3.4) for Weft's integration tests.
#
#   kube-apiserver.sh build        build once, cache binaries under $WEFT_CACHE_DIR/k8s (default ~/.cache/weft/k8s; idempotent)
#   kube-apiserver.sh start DIR    start etcd + kube-apiserver on 127.0.0.1, write DIR/kubeconfig
#   kube-apiserver.sh stop DIR     stop both (by the PIDs recorded in DIR)
#   kube-apiserver.sh bin          print the directory holding etcd and kube-apiserver
#
# Nothing is installed system-wide: Debian's kubernetes source package, Go 1.19, etcd and rsync are
# downloaded with apt into the cache and unpacked there. Takes ~5 min on 2 cores the first time.
set -euo pipefail

VERSION=1.20.2
CACHE=${WEFT_CACHE_DIR:-$HOME/.cache/weft}/k8s  # the one cache rule: .ci/run, the scripts and dist/pom.xml
BIN=$CACHE/$VERSION-linux-amd64
WORK=$CACHE/build
ETCD_PORT=${WEFT_ETCD_PORT:-2379}
API_PORT=${WEFT_APISERVER_PORT:-6443}

log() { echo "kube-apiserver.sh: $*" >&2; }

apt_private() {
  apt-get -q -o Dir::Etc::sourcelist="$WORK/apt/sources.list" -o Dir::Etc::sourceparts="$WORK/apt/parts" \
    -o Dir::State::Lists="$WORK/apt/lists" -o Dir::Cache="$WORK/apt/cache" \
    -o APT::Sandbox::User=root -o Debug::NoLocking=1 "$@"
}

build() {
  if [[ -x $BIN/kube-apiserver && -x $BIN/etcd ]]; then
    log "cached: $BIN"; return 0
  fi
  mkdir -p "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial" "$WORK/apt/parts" "$WORK/debs" "$WORK/root" "$BIN"
  # Private apt configuration: the machine's Debian sources plus deb-src.
  local src
  src=$(ls /etc/apt/sources.list.d/*.sources 2>/dev/null | xargs grep -l 'debian' | head -1 || true)
  [[ -n $src ]] || { log "no Debian deb822 sources file in /etc/apt/sources.list.d"; exit 1; }
  sed 's/^Types: deb$/Types: deb deb-src/' "$src" > "$WORK/apt/parts/debian.sources"
  : > "$WORK/apt/sources.list"
  apt_private update >/dev/null
  cd "$WORK"
  if ! ls kubernetes-*/Makefile >/dev/null 2>&1; then
    apt_private source --download-only kubernetes
    dpkg-source -x --no-check kubernetes_*.dsc
  fi
  local k8s
  k8s=$(ls -d "$WORK"/kubernetes-*/ | head -1)
  cd "$WORK/debs"
  apt_private download golang-1.19-go golang-1.19-src etcd-server golang-github-modern-go-reflect2-dev rsync libpopt0
  for d in *.deb; do dpkg-deb -x "$d" "$WORK/root"; done
  local R=$WORK/root
  # Kubernetes 1.20 vendors reflect2 1.0.1, which crashes under Go >= 1.18: use Debian's 1.0.2.
  local r2=$k8s/vendor/github.com/modern-go/reflect2
  rm -rf "$r2" && mkdir -p "$r2"
  find "$R/usr/share/gocode/src/github.com/modern-go/reflect2" -maxdepth 1 \( -name '*.go' -o -name '*.s' \) \
    ! -name '*_test.go' -exec cp {} "$r2/" \;
  cat > "$WORK/version" <<EOF
KUBE_GIT_VERSION='v$VERSION'
KUBE_GIT_MAJOR='1'
KUBE_GIT_MINOR='20'
KUBE_GIT_TREE_STATE='clean'
KUBE_GIT_COMMIT='0000000000000000000000000000000000000000'
EOF
  cd "$k8s"
  GOROOT=$R/usr/lib/go-1.19 PATH=$R/usr/lib/go-1.19/bin:$R/usr/bin:$PATH LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu \
    GOPROXY=off GOFLAGS=-mod=vendor CGO_ENABLED=0 KUBE_GIT_VERSION_FILE=$WORK/version GOCACHE=$WORK/gocache \
    make WHAT=cmd/kube-apiserver KUBE_BUILD_PLATFORMS=linux/amd64
  cp "$(find "$k8s/_output" -type f -name kube-apiserver -path '*linux/amd64*' | head -1)" "$BIN/kube-apiserver.tmp"
  cp "$R/usr/bin/etcd" "$BIN/etcd.tmp"
  mv "$BIN/etcd.tmp" "$BIN/etcd" && mv "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver"
  chmod +x "$BIN/etcd" "$BIN/kube-apiserver"
  log "built: $BIN (remove $WORK to reclaim ~3.5 GB)"
}

wait_for() { # wait_for SECONDS CMD...
  local n=$1; shift
  for ((i = 0; i < n * 10; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

start() {
  local dir=${1:?usage: start DIR}
  [[ -x $BIN/kube-apiserver && -x $BIN/etcd ]] || { log "not built: run '$0 build' first"; exit 3; }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  stop "$dir" 2>/dev/null || true
  rm -rf "$dir/etcd-data"
  "$BIN/etcd" --data-dir "$dir/etcd-data" --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --unsafe-no-fsync >"$dir/etcd.log" 2>&1 &
  echo $! >"$dir/etcd.pid"
  local token
  token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  echo "$token,weft-admin,weft-admin,system:masters" >"$dir/tokens.csv"
  [[ -f $dir/sa.key ]] || openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null
  "$BIN/kube-apiserver" --bind-address=127.0.0.1 --secure-port="$API_PORT" --cert-dir="$dir/certs" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" --token-auth-file="$dir/tokens.csv" \
    --authorization-mode=RBAC --service-account-key-file="$dir/sa.key" \
    --service-account-signing-key-file="$dir/sa.key" --service-account-issuer=https://kubernetes.default.svc \
    --service-cluster-ip-range=10.0.0.0/24 --disable-admission-plugins=ServiceAccount \
    >"$dir/apiserver.log" 2>&1 &
  echo $! >"$dir/apiserver.pid"
  cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: weft-test
  cluster: {server: "https://127.0.0.1:$API_PORT", insecure-skip-tls-verify: true}
users:
- name: weft-admin
  user: {token: "$token"}
contexts:
- name: weft-test
  context: {cluster: weft-test, user: weft-admin, namespace: default}
current-context: weft-test
EOF
  if ! wait_for 60 curl -skf -H "Authorization: Bearer $token" "https://127.0.0.1:$API_PORT/readyz"; then
    log "kube-apiserver not ready after 60 s; see $dir/apiserver.log"; tail -20 "$dir/apiserver.log" >&2
    stop "$dir"; exit 1
  fi
  log "ready: KUBECONFIG=$dir/kubeconfig"
}

stop() {
  local dir=${1:?usage: stop DIR}
  for p in apiserver etcd; do
    if [[ -f $dir/$p.pid ]]; then
      local pid; pid=$(cat "$dir/$p.pid")
      kill "$pid" 2>/dev/null && wait_for 10 bash -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
      rm -f "$dir/$p.pid"
    fi
  done
}

case ${1:-build} in
  build) build ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  bin) echo "$BIN" ;;
  *) echo "usage: $0 build|start DIR|stop DIR|bin" >&2; exit 2 ;;
esac

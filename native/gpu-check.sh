#!/usr/bin/env bash
# Weft's GPU check. Two steps, on two machines:
#
#   native/gpu-check.sh pack [BUNDLE]   here (JDK + Maven, no GPU): builds sdk-native (WEFT_SKIP_BUILD=1 skips) and packs a jlink'd
#                                       Java runtime, the jars and the native libraries into BUNDLE
#                                       (default native/target/gpu-check), checking that it stays under 64 MiB.
#   native/gpu-check.sh run [BUNDLE]    on a machine with one NVIDIA GPU and no JDK or network: finds libnccl.so.2
#                                       (pip's nvidia-nccl-*, or WEFT_NCCL_LIBRARY), then runs
#                                       dev.weft.cuda.check.GpuCheck: every kernel against its CPU reference,
#                                       an NCCL single-rank round trip, and the fused AdamW bandwidth.
#
# Exit status of run: 0 all checks passed, 1 a check failed, 2 no usable CUDA device, 3 the bundle is incomplete.
# Expected output: docs/native.md, section "The GPU check".
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIMIT_BYTES=$((64 * 1024 * 1024))
MODULES="java.base,jdk.unsupported"   # jdk.unsupported: JavaCPP uses sun.misc.Unsafe when present

bundle_dir() { echo "${1:-$ROOT/native/target/gpu-check}"; }

pick_jlink() {
  # Temurin's runtime bundles its own zlib and targets an old glibc: the most portable; else the JDK on the PATH.
  for j in /usr/lib/jvm/temurin-25-jdk-amd64/bin/jlink "${JAVA_HOME:-/nonexistent}/bin/jlink" "$(command -v jlink || true)"; do
    if [[ -n "$j" && -x "$j" ]]; then echo "$j"; return; fi
  done
  echo "gpu-check: no jlink found; install a JDK (17 or newer) or set JAVA_HOME" >&2
  exit 3
}

jar_of() {  # jar_of GROUP_PATH ARTIFACT VERSION [CLASSIFIER]
  local f="$HOME/.m2/repository/$1/$2/$3/$2-$3${4:+-$4}.jar"
  [[ -f "$f" ]] || { echo "gpu-check: $f is missing; run: mvn -B -pl sdk-native package" >&2; exit 3; }
  echo "$f"
}

pack() {
  local out; out="$(bundle_dir "${1:-}")"
  local native_jar="$ROOT/sdk-native/target/weft-sdk-native-0.1.0-SNAPSHOT.jar"
  if [[ "${WEFT_SKIP_BUILD:-0}" != 1 ]]; then
    (cd "$ROOT" && mvn -q -B -pl sdk-native package -DskipTests)
  fi
  [[ -f "$native_jar" ]] || { echo "gpu-check: $native_jar is missing; run: mvn -B -pl sdk-native package" >&2; exit 3; }
  rm -rf "$out"
  mkdir -p "$out/lib"
  "$(pick_jlink)" --add-modules "$MODULES" --compress=zip-9 --strip-debug --no-man-pages --no-header-files \
      --output "$out/runtime" 2>/dev/null \
    || "$(pick_jlink)" --add-modules "$MODULES" --compress=2 --strip-debug --no-man-pages --no-header-files \
      --output "$out/runtime"
  cp "$native_jar" "$out/lib/"
  cp "$(jar_of dev/weft weft-sdk-api 0.1.0-SNAPSHOT)" "$out/lib/"
  cp "$(jar_of org/bytedeco javacpp 1.5.13)" "$(jar_of org/bytedeco javacpp 1.5.13 linux-x86_64)" "$out/lib/"
  cp "$ROOT/native/gpu-check.sh" "$out/"
  local size; size=$(du -sb "$out" | cut -f1)
  echo "bundle: $out"
  echo "size:   $size bytes ($((size / 1024 / 1024)) MiB; limit 64 MiB)"
  du -sh "$out/runtime" "$out"/lib/*.jar | sed 's/^/  /'
  if (( size >= LIMIT_BYTES )); then echo "gpu-check: the bundle is over 64 MiB" >&2; exit 3; fi
  # Smoke test here: the runtime starts, the classes link, and without a GPU the check exits with status 2.
  local cache; cache="$(mktemp -d)"
  set +e
  java_in "$out" "$cache" > "$out/smoke.txt" 2>&1
  local rc=$?
  set -e
  rm -rf "$cache"
  sed 's/^/  smoke: /' "$out/smoke.txt"
  if [[ $rc -ne 0 && $rc -ne 2 ]]; then echo "gpu-check: the bundle does not start (status $rc)" >&2; exit 3; fi
}

java_in() {  # java_in BUNDLE CACHE_DIR: runs the check with the bundle's runtime
  local opts=(-Dorg.bytedeco.javacpp.cachedir="$2" -cp "$1/lib/*")
  if "$1/runtime/bin/java" --enable-native-access=ALL-UNNAMED -version >/dev/null 2>&1; then
    opts=(--enable-native-access=ALL-UNNAMED "${opts[@]}")
  fi
  "$1/runtime/bin/java" "${opts[@]}" dev.weft.cuda.check.GpuCheck
}

add_driver_path() {  # the driver library may sit outside the loader's default path (e.g. /usr/local/nvidia)
  if ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then return; fi
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/cuda/compat; do
    if [[ -e "$d/libcuda.so.1" ]]; then
      echo "libcuda.so.1: $d"
      export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      return
    fi
  done
}

find_nccl() {
  if [[ -n "${WEFT_NCCL_LIBRARY:-}" ]]; then echo "$WEFT_NCCL_LIBRARY"; return; fi
  local roots=()
  for py in python3 /opt/torch/.venv/bin/python3; do
    if command -v "$py" >/dev/null 2>&1; then
      while IFS= read -r d; do roots+=("$d"); done < <("$py" -c \
        'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))' 2>/dev/null || true)
    fi
  done
  roots+=(/usr/local /usr/lib /opt)
  for r in "${roots[@]}"; do
    [[ -d "$r" ]] || continue
    local hit; hit=$(find "$r" -maxdepth 6 -name libnccl.so.2 2>/dev/null | head -n 1)
    if [[ -n "$hit" ]]; then echo "$hit"; return; fi
  done
}

run() {
  local b; b="$(bundle_dir "${1:-}")"
  [[ -x "$b/runtime/bin/java" ]] || { echo "gpu-check: no runtime in $b; run 'native/gpu-check.sh pack' first" >&2; exit 3; }
  local nccl; nccl="$(find_nccl || true)"
  if [[ -n "$nccl" ]]; then
    echo "libnccl.so.2: $nccl"
    export WEFT_NCCL_LIBRARY="$nccl"
    export LD_LIBRARY_PATH="$(dirname "$nccl")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  else
    echo "libnccl.so.2: not found under python's site-packages, /usr/local, /usr/lib or /opt (NCCL checks will fail)"
  fi
  add_driver_path
  local cache; cache="$(mktemp -d)"
  trap 'rm -rf "$cache"' EXIT
  java_in "$b" "$cache"
}

case "${1:-}" in
  pack) pack "${2:-}" ;;
  run) run "${2:-}" ;;
  *) echo "usage: native/gpu-check.sh pack|run [BUNDLE]" >&2; exit 64 ;;
esac

#!/usr/bin/env bash
# Weft's GPU check. Two steps, on two machines:
#
#   native/gpu-check.sh pack [BUNDLE]   here (JDK + Maven, no GPU): builds sdk-api and sdk-native (WEFT_SKIP_BUILD=1
#                                       skips), fetches libtorch's CUDA build of the presets once (458 MB, into ~/.m2),
#                                       and packs a jlink'd Java runtime, the jars, Weft's native libraries and the
#                                       presets' JNI glue (libjnitorch*.so, xz'd) into BUNDLE (default
#                                       native/target/gpu-check), checking that it stays under 64 MiB; then smoke-tests
#                                       the bundle here ("NO DEVICE", status 2).
#   native/gpu-check.sh run [BUNDLE]    on a machine with one NVIDIA GPU and no JDK or network (planned for about 8
#                                       minutes on one H100/H200, not yet timed there; the plan prints first, every
#                                       step prints its time against it):
#                                       1. finds libnccl.so.2 and lists the NCCL symbols Weft's shim resolves that it
#                                          lacks (nccl-symbols.txt);
#                                       2. dev.weft.cuda.check.GpuCheck (~1 min, no libtorch): every kernel (fused
#                                          AdamW, casts, unscale, pack, NF4/int8 dequantization) against its CPU
#                                          reference, NCCL on one rank (all-to-all included), the AdamW bandwidth;
#                                       3. finds Python torch's libraries (site-packages/torch/lib), unpacks the glue
#                                          and lists every symbol it needs that they lack (missing-symbols.txt);
#                                       4. if nothing is missing: dev.weft.cuda.check.GpuTrainingCheck within
#                                          WEFT_GPU_CHECK_BUDGET_S (420 s; later steps are listed as skipped):
#                                          libtorch CUDA from Java, the sharded optimizer's fused step vs libtorch's
#                                          AdamW, a bf16 GEMM, GPT small device vs CPU, then the fine-tuning paths
#                                          (FineTuneCheck: a Llama-3.2-1B-shaped decoder vs the CPU, a one-rank NCCL
#                                          all-to-all through the Communicator, chat-masked SFT, DPO, LoRA under bf16
#                                          autocast and on a bf16 and an nf4 base, chunked cross-entropy at vocab
#                                          128,256, the 1B shape's MFU at seq 2048 and its LoRA runs with peak memory
#                                          vs weft plan, KV-cache generation tokens/s), last a ~1.2B GPT's MFU
#                                          (WEFT_GPU_CHECK_SKIP_1B=1 leaves it out).
#                                       The whole log goes to $OUT/gpu-check.log when $OUT is set (with the two symbol
#                                       lists); the results are printed again at the end.
#   native/gpu-check.sh run --dry [BUNDLE]  here: every step of the training half on the CPU with tiny shapes, with
#                                       the bundle's runtime and the CPU libtorch of ~/.m2 (WEFT_DRY_JARS: other jars,
#                                       ':'-separated); status 0 / 1 like run. The suite runs the same steps
#                                       (GpuTrainingCheckDryTest).
#
# Exit status of run: 0 all checks passed, 1 a check failed, 2 no usable CUDA device, 3 the bundle is incomplete;
# the glue not linking is reported (step 3) and does not change the status. Expected output: docs/native.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIMIT_BYTES=$((64 * 1024 * 1024))
MODULES="java.base,jdk.unsupported"   # jdk.unsupported: JavaCPP uses sun.misc.Unsafe when present
TORCH_GPU="org.bytedeco:pytorch:2.10.0-1.5.13:jar:linux-x86_64-gpu"
GLUE=(libjnitorch.so libjnitorch_cuda.so libjnitorch_nccl.so libjnitorch_gloo.so)

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
    (cd "$ROOT" && mvn -q -B -pl sdk-native -am package -DskipTests)
  fi
  [[ -f "$native_jar" ]] || { echo "gpu-check: $native_jar is missing; run: mvn -B -pl sdk-native package" >&2; exit 3; }
  rm -rf "$out"
  mkdir -p "$out/lib"
  "$(pick_jlink)" --add-modules "$MODULES" --compress=zip-9 --strip-debug --no-man-pages --no-header-files \
      --output "$out/runtime" 2>/dev/null \
    || "$(pick_jlink)" --add-modules "$MODULES" --compress=2 --strip-debug --no-man-pages --no-header-files \
      --output "$out/runtime"
  cp "$native_jar" "$out/lib/"
  local api_jar="$ROOT/sdk-api/target/weft-sdk-api-0.1.0-SNAPSHOT.jar"
  [[ -f "$api_jar" ]] || { echo "gpu-check: $api_jar is missing; run: mvn -B -pl sdk-native -am package" >&2; exit 3; }
  cp "$api_jar" "$out/lib/"
  api_runtime_jars | while IFS= read -r j; do cp "$j" "$out/lib/"; done
  pack_glue "$out/natives"
  cp "$ROOT/native/gpu-check.sh" "$ROOT/native/gpu-train/missing_symbols.py" "$out/"
  local size; size=$(du -sb "$out" | cut -f1)
  echo "bundle: $out"
  echo "size:   $size bytes ($((size / 1024 / 1024)) MiB; limit 64 MiB)"
  du -sh "$out/runtime" "$out"/lib/*.jar "$out"/natives/*.xz | sed 's/^/  /'
  if (( size >= LIMIT_BYTES )); then echo "gpu-check: the bundle is over 64 MiB" >&2; exit 3; fi
  # Smoke test here: the runtime starts, the classes link, both checks exit with status 2 without a GPU, and the
  # symbol report reads the glue (here no torch library is on its path, so it lists them all as not found).
  local cache; cache="$(mktemp -d)"
  set +e
  { java_in "$out" "$cache" dev.weft.cuda.check.GpuCheck; echo "status $?"; \
    java_in "$out" "$cache" dev.weft.cuda.check.GpuTrainingCheck; echo "status $?"; } > "$out/smoke.txt" 2>&1
  unpack_glue "$out" "$cache/glue" && python3 "$out/missing_symbols.py" "$cache/missing.txt" "$cache"/glue/libjnitorch*.so -- \
    >> "$out/smoke.txt" 2>&1
  local sym=$?
  nccl_symbols "$out" "$cache" "" >> "$out/smoke.txt" 2>&1 || sym=99
  set -e
  rm -rf "$cache"
  sed 's/^/  smoke: /' "$out/smoke.txt"
  if [[ "$(grep -c '^status 2$' "$out/smoke.txt")" != 2 ]]; then echo "gpu-check: the bundle does not start" >&2; exit 3; fi
  if [[ $sym -ne 1 ]]; then echo "gpu-check: the symbol report did not run (status $sym)" >&2; exit 3; fi
}

nccl_symbols() {  # nccl_symbols BUNDLE CACHE LIBNCCL: the NCCL symbols Weft's shim resolves, checked against LIBNCCL ("": listed)
  local shim="$2/shim/libweftnccl.so"
  mkdir -p "$2/shim"
  python3 - "$1"/lib/weft-sdk-native-*.jar "$shim" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "wb") as o:
    o.write(z.read("dev/weft/cuda/jni/linux-x86_64/libweftnccl.so"))
PY
  python3 "$1/missing_symbols.py" --nccl "$2/nccl-symbols.txt" "$shim" ${3:+"$3"}
}

api_runtime_jars() {  # the runtime jars of sdk-api that the checks need
  local cp; cp="$(mktemp)"
  (cd "$ROOT" && mvn -q -B -o -pl sdk-api dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$cp") >&2
  # what the checks load: libtorch's Java classes (and openblas's, which they inherit), JavaCPP and its small native
  # loader, Jackson and SLF4J; not libtorch's CPU natives (~90 MB: the GPU machine has its own libtorch)
  tr ':' '\n' < "$cp" | grep -E -- '/(pytorch|openblas|javacpp|jackson-[a-z-]+|snakeyaml|slf4j-[a-z]+)-[0-9][^/]*\.jar$' \
    | grep -v -E -- '/(pytorch|openblas)-[^/]*-linux-x86_64\.jar$' || true
  rm -f "$cp"
}

pack_glue() {  # the presets' JNI glue from libtorch's CUDA build, xz'd (5.6 MB of 458)
  local dir="$1" jar="$HOME/.m2/repository/org/bytedeco/pytorch/2.10.0-1.5.13/pytorch-2.10.0-1.5.13-linux-x86_64-gpu.jar"
  if [[ ! -f "$jar" ]]; then
    echo "gpu-check: fetching $TORCH_GPU (458 MB, once)" >&2
    (cd "$ROOT" && mvn -q -B dependency:get -Dartifact="$TORCH_GPU" -Dtransitive=false) >&2
  fi
  mkdir -p "$dir"
  local tmp; tmp="$(mktemp -d)"
  for f in "${GLUE[@]}"; do
    unzip -q -o -j "$jar" "org/bytedeco/pytorch/linux-x86_64-gpu/$f" -d "$tmp"
    xz -9 -T1 -c "$tmp/$f" > "$dir/$f.xz"
  done
  rm -rf "$tmp"
}

unpack_glue() {  # unpack_glue BUNDLE DIR: with Python's lzma, since the GPU machine may lack xz
  mkdir -p "$2"
  python3 - "$1/natives" "$2" <<'PY'
import lzma, os, sys
src, dst = sys.argv[1], sys.argv[2]
for f in sorted(os.listdir(src)):
    if f.endswith(".xz"):
        with lzma.open(os.path.join(src, f)) as i, open(os.path.join(dst, f[:-3]), "wb") as o:
            o.write(i.read())
PY
}

java_in() {  # java_in BUNDLE CACHE_DIR MAIN [JAVA_OPTION...]: runs a check with the bundle's runtime
  local opts=(-Dorg.bytedeco.javacpp.cachedir="$2" -cp "$1/lib/*" "${@:4}")
  if "$1/runtime/bin/java" --enable-native-access=ALL-UNNAMED -version >/dev/null 2>&1; then
    opts=(--enable-native-access=ALL-UNNAMED "${opts[@]}")
  fi
  "$1/runtime/bin/java" "${opts[@]}" "$3"
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

dry() {  # dry BUNDLE: the training half's steps on the CPU, tiny shapes
  local b="$1" m2="$HOME/.m2/repository/org/bytedeco"
  local jars="${WEFT_DRY_JARS:-$m2/pytorch/2.10.0-1.5.13/pytorch-2.10.0-1.5.13-linux-x86_64.jar:$m2/openblas/0.3.31-1.5.13/openblas-0.3.31-1.5.13-linux-x86_64.jar}"
  local j; for j in ${jars//:/ }; do
    [[ -f "$j" ]] || { echo "gpu-check: the dry run needs libtorch's CPU build: $j is missing (set WEFT_DRY_JARS)" >&2; exit 3; }
  done
  local cache rc=0; cache="$(mktemp -d)"
  OMP_WAIT_POLICY=PASSIVE "$b/runtime/bin/java" -Dorg.bytedeco.javacpp.cachedir="$cache" -cp "$b/lib/*:$jars" \
    dev.weft.cuda.check.GpuTrainingCheck --dry || rc=$?
  rm -rf "$cache"
  return $rc
}

run() {
  if [[ "${1:-}" == --dry ]]; then
    local db; db="$(bundle_dir "${2:-}")"
    [[ -x "$db/runtime/bin/java" ]] || { echo "gpu-check: no runtime in $db; run 'native/gpu-check.sh pack' first" >&2; exit 3; }
    local rc=0
    dry "$db" || rc=$?
    exit $rc
  fi
  local b; b="$(bundle_dir "${1:-}")"
  [[ -x "$b/runtime/bin/java" ]] || { echo "gpu-check: no runtime in $b; run 'native/gpu-check.sh pack' first" >&2; exit 3; }
  local cache; cache="$(mktemp -d)"
  trap 'rm -rf "$cache"' EXIT
  # The whole log (the training runs log a lot) goes to $OUT/gpu-check.log when $OUT is set; the results are printed
  # again at the end, so they are in the last lines a caller keeps.
  local log="$cache/gpu-check.log"
  if [[ -n "${OUT:-}" && -d "${OUT:-}" ]]; then log="$OUT/gpu-check.log"; fi
  local rc
  set +e
  device_checks "$b" "$cache" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  echo "== results (whole log: $log) =="
  results "$log"
  echo "gpu-check: status $rc"
  exit $rc
}

results() {  # results LOG: what each step found; of the kernel half (~90 lines) only its failures, sections and total
  awk '/^== weft gpu check ==/ { kernels = 1 } /^== libtorch glue/ { kernels = 0 }
       /^-- plan/ { next }
       kernels && /^(== |-- |  FAIL |  \(|NO )/ { print; next }
       !kernels && /^(== |-- |  (PASS|FAIL|SKIP) |  \(|libnccl|NO |  lib(weftnccl|jnitorch)|  torch libraries)/ { print }' "$1"
}

device_checks() {  # device_checks BUNDLE CACHE: NCCL found and listed, the kernel/NCCL half, then the training half
  local b="$1" cache="$2"
  echo "plan: the kernel/NCCL half (~1 min), then the training half (its plan below; budget ${WEFT_GPU_CHECK_BUDGET_S:-420} s)"
  local nccl; nccl="$(find_nccl || true)"
  if [[ -n "$nccl" ]]; then
    echo "libnccl.so.2: $nccl"
    export WEFT_NCCL_LIBRARY="$nccl"
    export LD_LIBRARY_PATH="$(dirname "$nccl")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  else
    echo "libnccl.so.2: not found under python's site-packages, /usr/local, /usr/lib or /opt (NCCL checks will fail)"
  fi
  add_driver_path
  echo "== NCCL symbols of Weft's shim =="
  if [[ -n "$nccl" ]]; then
    nccl_symbols "$b" "$cache" "$nccl" | sed 's/^/  /' || echo "  FAIL libnccl.so.2 lacks symbols the shim needs (nccl-symbols.txt)"
  else
    nccl_symbols "$b" "$cache" "" | sed 's/^/  /'
  fi
  if [[ -n "${OUT:-}" && -d "${OUT:-}" ]]; then cp "$cache/nccl-symbols.txt" "$OUT/"; fi
  # the kernel/NCCL half first: a minute, no libtorch, and its lines are wanted whatever the training half does
  local train_rc=0 kernel_rc=0
  java_in "$b" "$cache" dev.weft.cuda.check.GpuCheck || kernel_rc=$?
  if [[ $kernel_rc -eq 2 ]]; then return 2; fi  # no device: the training half would say the same
  training_check "$b" "$cache" || train_rc=$?
  return $(( kernel_rc != 0 ? kernel_rc : train_rc ))
}

torch_lib_dirs() {  # Python torch's lib folder, then pip's NVIDIA library folders (cuDNN, cuSPARSE, cuBLAS, NCCL, ...)
  if [[ -n "${WEFT_TORCH_LIB:-}" ]]; then tr ':' '\n' <<< "$WEFT_TORCH_LIB"; return; fi  # folders, ':'-separated
  local py
  for py in python3 /opt/torch/.venv/bin/python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    "$py" - <<'PY' 2>/dev/null && return
import glob, os, torch
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
print(lib)
for d in sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(torch.__file__)), "nvidia", "*", "lib"))):
    print(d)
PY
  done
}

training_check() {  # training_check BUNDLE CACHE: link the glue against torch's libraries, report, run if it links
  local b="$1" glue="$2/glue" report="$2/missing-symbols.txt" dirs=()
  while IFS= read -r d; do dirs+=("$d"); done < <(torch_lib_dirs)
  echo "== libtorch glue (presets 2.10) against this machine's libtorch =="
  if [[ ${#dirs[@]} -eq 0 ]]; then
    echo "  SKIP no Python torch found: the training check needs site-packages/torch/lib"
    return
  fi
  echo "  torch libraries: ${dirs[0]}"
  unpack_glue "$b" "$glue"
  local rc=0
  python3 "$b/missing_symbols.py" "$report" "$glue/libjnitorch.so" "$glue/libjnitorch_cuda.so" "$glue/libjnitorch_nccl.so" \
    -- "${dirs[@]}" | sed 's/^/  /' || true
  if [[ -n "${OUT:-}" && -d "${OUT:-}" ]]; then cp "$report" "$OUT/"; fi
  if grep -q ' missing \| -> NOT FOUND' "$report"; then
    echo "  FAIL the glue does not link here: $(grep -c ' missing ' "$report") symbols missing (first 20 below;"
    echo "       all in missing-symbols.txt); falling back to the kernel and NCCL check"
    grep ' missing \| -> NOT FOUND' "$report" | head -n 20 | sed 's/^/    /'
    return
  fi
  local path; path="$glue:$(IFS=:; echo "${dirs[*]}")"
  LD_LIBRARY_PATH="$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" java_in "$b" "$2" dev.weft.cuda.check.GpuTrainingCheck \
    -Dorg.bytedeco.javacpp.pathsFirst=true -Djava.library.path="$path" -Dorg.bytedeco.javacpp.platform.extension=-gpu \
    || rc=$?
  echo "  training check status $rc"
  if [[ $rc -eq 1 ]]; then return 1; fi  # a check failed; any other status was explained in its output
}

case "${1:-}" in
  pack) pack "${2:-}" ;;
  run) run "${2:-}" "${3:-}" ;;
  *) echo "usage: native/gpu-check.sh pack [BUNDLE] | run [--dry] [BUNDLE]" >&2; exit 64 ;;
esac

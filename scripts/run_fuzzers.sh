#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with clang under ASan + UBSan and runs each for a bounded time.
#
#   scripts/run_fuzzers.sh [TARGET...]        default: every fuzz/*_fuzzer.cc
#
# Environment:
#   NNX_FUZZ_JOBS        targets fuzzed at once (default: the machine's cores, nproc)
#   NNX_FUZZ_BUDGET      seconds of wall time the rounds share (default 60: `make test`'s lane; a longer session
#                        is this variable alone, e.g. NNX_FUZZ_BUDGET=3600)
#   NNX_FUZZ_SECONDS     seconds per target (-max_total_time; default: NNX_FUZZ_BUDGET shared by the rounds of
#                        NNX_FUZZ_JOBS targets, e.g. 13 targets on 2 cores: 7 rounds of 8 s)
#   NNX_FUZZ_MIN_EXECS   executions each target must reach (default 50000): a target under it after its slot
#                        goes on until it reaches it (for at most the budget more, never under 3 slots), so a
#                        busy machine takes longer
#   NNX_FUZZ_MIN_TOTAL   executions all targets run together must reach (default 1000000; 0 when targets are
#                        named on the command line, unless set)
#   NNX_FUZZ_BUILD_DIR   where objects and binaries go (default <repo>/build/fuzz)
#   NNX_FUZZ_CXX         the compiler (default clang++-14, else clang++)
#   NNX_FUZZ_PYTHON      the Python whose headers and libpython the Python-embedding targets link (default
#                        <repo>/.venv/bin/python, else python3)
#
# Each target is built from fuzz/<target>.cc and the core's sources it needs (compiled with
# -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all, in the unity build's batches, into one
# archive the targets link from; a generated ninja file rebuilds only what changed). The ONNX targets also
# get onnx.proto (the onnx wheel's, as the build's CMakeLists.txt finds it) compiled by protoc into the fuzz
# build folder and libprotobuf-lite; the Python targets embed the
# interpreter (libpython, pybind11's headers from that Python) and run with leak detection off (the
# interpreter keeps its objects to the end) and PYTHONPATH=<repo>/fuzz:<repo>/worker. Its committed seed corpus
# fuzz/corpus/<target>/ is COPIED to a scratch folder, which the run grows: the committed corpus never
# changes here. The script prints, per target, the executions, the speed (exec/s) and the corpus size, then
# the total, and exits non-zero on any finding (a crash, a leak, undefined behaviour, an out-of-memory or a
# timeout), a build failure, or a target (or the total) under its bound of executions; the input that caused
# a finding is kept in <build dir>/findings/ and its reproduction command is printed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${NNX_FUZZ_JOBS:-$(nproc)}"
BUDGET_SECONDS="${NNX_FUZZ_BUDGET:-60}"
SECONDS_PER_TARGET="${NNX_FUZZ_SECONDS:-}"
MIN_EXECS="${NNX_FUZZ_MIN_EXECS:-50000}"
if (($# > 0)); then MIN_TOTAL="${NNX_FUZZ_MIN_TOTAL:-0}"; else MIN_TOTAL="${NNX_FUZZ_MIN_TOTAL:-1000000}"; fi
OUT="${NNX_FUZZ_BUILD_DIR:-$ROOT/build/fuzz}"
CXX="${NNX_FUZZ_CXX:-}"
if [[ -z "$CXX" ]]; then
  if command -v clang++-14 >/dev/null; then CXX=clang++-14; else CXX=clang++; fi
fi
log() { printf 'run_fuzzers: %s\n' "$*" >&2; }

[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { log "NNX_FUZZ_JOBS=$JOBS is not a positive integer"; exit 2; }
[[ "$BUDGET_SECONDS" =~ ^[1-9][0-9]*$ ]] || { log "NNX_FUZZ_BUDGET=$BUDGET_SECONDS is not a positive number of seconds"; exit 2; }
[[ -z "$SECONDS_PER_TARGET" || "$SECONDS_PER_TARGET" =~ ^[1-9][0-9]*$ ]] ||
  { log "NNX_FUZZ_SECONDS=$SECONDS_PER_TARGET is not a positive integer"; exit 2; }
[[ "$MIN_EXECS" =~ ^[0-9]+$ ]] || { log "NNX_FUZZ_MIN_EXECS=$MIN_EXECS is not a number of executions"; exit 2; }
[[ "$MIN_TOTAL" =~ ^[0-9]+$ ]] || { log "NNX_FUZZ_MIN_TOTAL=$MIN_TOTAL is not a number of executions"; exit 2; }
command -v "$CXX" >/dev/null || { log "$CXX not found (scripts/bootstrap.sh installs clang and libclang-rt-14-dev)"; exit 1; }
command -v ninja >/dev/null || { log "ninja not found (scripts/bootstrap.sh installs ninja-build)"; exit 1; }

# The core sources each target needs (nothing that needs ONNX Runtime, BLAS or the worker).
JSON_SOURCES=(base/json_strict base/json_python base/host_facts record/validate_record artifacts/artifact_path artifacts/artifacts
              artifacts/artifact_folder base/sha256 base/sha256_behind base/failure base/record_vocabulary base/model_kind base/json_fields record/profile_rebuild record/settings_in_place
              profile/profile model/model_config record/record record/record_format record/record_json
              record/validate_stages record/validate_cases record/validate_artifacts artifacts/layout
              base/error base/interrupt base/build_info base/json_tape base/json_view base/file_bytes
              record/validate_module_specs record/validate_module_cases record/validate_exact_outputs record/validate_vacuous_tolerance
              record/validate_dtype_tolerances base/dtype_tolerance
              base/exact_compare
              profile/profile_module profile/module_spec
              profile/module_spec_json base/tensor base/tolerance_compare record/validate_triangulation
              profile/module_spec_rules profile/module_factory profile/profile_spelling
              profile/onnx_file_profile profile/onnx_file_spec profile/data_set_folder profile/given_inputs record/validate_model_variant
              onnx_file/onnx_model_file onnx_file/onnx_tensor onnx_file/tensor_proto base/nearest_name
              profile/python_names base/built_in_model_record record/validate_built_in base/precision
              record/validate_precision)
ONNX_SOURCES=(onnx_file/onnx_model_file onnx_file/onnx_tensor onnx_file/tensor_proto base/tensor base/error base/failure
              base/interrupt base/json_python)
PROFILE_SOURCES=(profile/profile_file profile/profile profile/profile_module profile/module_spec
                 profile/module_spec_json model/model_config artifacts/artifact_path artifacts/layout base/json_strict base/json_fields
                 base/record_vocabulary base/model_kind base/file_bytes base/error base/failure base/interrupt base/tensor base/json_python
                 base/tolerance_compare profile/module_spec_rules profile/module_factory profile/profile_spelling
                 profile/onnx_file_profile profile/onnx_file_spec profile/data_set_folder profile/given_inputs onnx_file/onnx_model_file onnx_file/onnx_tensor
                 onnx_file/tensor_proto base/nearest_name profile/python_names base/precision)
declare -A TARGET_SOURCES=(
  [json_record_fuzzer]="${JSON_SOURCES[*]}"
  [artifact_path_fuzzer]="artifacts/artifact_path"
  [onnx_model_fuzzer]="${ONNX_SOURCES[*]}"
  [worker_answer_fuzzer]="worker/worker_answer worker/tensor_wire worker/tensor_frames worker/worker_error
                          base/json_strict base/json_python base/file_bytes base/tensor base/error base/failure base/interrupt"
  [profile_file_fuzzer]="${PROFILE_SOURCES[*]}"
  [python_json_fuzzer]="python/python_json base/json_tape base/json_strict base/json_python base/file_bytes
                        base/error base/failure base/interrupt"
  [worker_request_fuzzer]=""
  [tensor_file_fuzzer]=""
  [ssh_key_fuzzer]="base/ssh_key base/ssh_wire base/sshsig base/file_bytes base/error base/failure base/interrupt
                    base/record_vocabulary"
  [module_spec_fuzzer]="profile/module_spec profile/module_spec_json profile/module_spec_rules profile/module_factory
                        profile/python_names base/nearest_name artifacts/layout
                        base/json_strict base/json_fields base/record_vocabulary base/model_kind base/tensor base/tolerance_compare
                        base/error base/failure base/interrupt base/json_python base/file_bytes base/precision"
  [tensor_proto_fuzzer]="onnx_file/tensor_proto onnx_file/onnx_tensor base/tensor base/error base/failure base/interrupt base/json_python"
  [terminal_text_fuzzer]="base/terminal_text"
  [tensor_frames_fuzzer]="worker/tensor_frames worker/worker_error base/tensor base/error base/failure base/interrupt
                          base/json_python"
)
# What a target links beyond its sources: "onnx" (onnx.pb.cc and libprotobuf-lite), "python" (libpython).
declare -A TARGET_NEEDS=([onnx_model_fuzzer]=onnx [tensor_proto_fuzzer]=onnx [python_json_fuzzer]=python
                         [worker_request_fuzzer]=python [tensor_file_fuzzer]=python [json_record_fuzzer]=onnx
                         [profile_file_fuzzer]=onnx)

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$ROOT"/fuzz/*_fuzzer.cc; do targets+=("$(basename "$f" .cc)"); done
fi
for t in "${targets[@]}"; do
  [[ -n "${TARGET_SOURCES[$t]+set}" ]] || { log "unknown target $t (known: ${!TARGET_SOURCES[*]})"; exit 2; }
  [[ -d "$ROOT/fuzz/corpus/$t" ]] || { log "no seed corpus fuzz/corpus/$t"; exit 1; }
done

mkdir -p "$OUT/obj" "$OUT/findings"
needs=" "
for t in "${targets[@]}"; do needs+="${TARGET_NEEDS[$t]:-} "; done
version="$(sed -nE 's/^project\([^ ]+ VERSION ([0-9.]+).*/\1/p' "$ROOT/CMakeLists.txt")"
flags="-std=c++20 -gline-tables-only -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
flags+=" -Wall -Wextra -I$ROOT/src -DNNX_VERSION=\\\"${version:-0}\\\" -DNNX_SOURCE_DIR=\\\"\\\" -DNNX_BUNDLED_ORT=\\\"\\\""
onnx_proto=""
if [[ "$needs" == *" onnx "* ]]; then
  onnx_proto="$(ls "$ROOT"/.venv/lib/python3*/site-packages/onnx/onnx.proto 2>/dev/null | head -n1)"
  [[ -f "$onnx_proto" ]] || { log "onnx.proto not found in .venv (make bootstrap installs onnx)"; exit 1; }
  command -v protoc >/dev/null || { log "protoc not found (scripts/bootstrap.sh installs protobuf-compiler)"; exit 1; }
  flags+=" -I$OUT/onnx_proto"
fi
python_link=""
if [[ "$needs" == *" python "* ]]; then
  py="${NNX_FUZZ_PYTHON:-}"
  [[ -n "$py" ]] || { if [[ -x "$ROOT/.venv/bin/python" ]]; then py="$ROOT/.venv/bin/python"; else py=python3; fi; }
  read -r py_include py_libdir py_lib pybind_include < <("$py" -c 'import sysconfig, pybind11
c = sysconfig.get_config_var
print(sysconfig.get_paths()["include"], c("LIBDIR"), "python" + c("LDVERSION"), pybind11.get_include())') ||
    { log "$py gives no Python headers and pybind11 (make bootstrap installs pybind11 into .venv)"; exit 1; }
  flags+=" -I$py_include -I$pybind_include"
  python_link="-L$py_libdir -l$py_lib -Wl,-rpath,$py_libdir"
fi
{
  echo "# generated by scripts/run_fuzzers.sh"
  # ccache when there is one (as CMakeLists.txt uses it): the checkout as its base, so any clone hits.
  if command -v ccache >/dev/null; then
    echo "cxx = env CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1 ccache $CXX"
  else
    echo "cxx = $CXX"
  fi
  echo "flags = $flags"
  echo "rule cc"
  echo "  command = \$cxx \$flags -MMD -MF \$out.d -c \$in -o \$out"
  echo "  depfile = \$out.d"
  echo "  deps = gcc"
  echo "  description = CXX \$out"
  echo "rule link"
  echo "  command = \$cxx \$flags \$in -o \$out -lcrypto \$libs"
  echo "  description = LINK \$out"
  if [[ -n "$onnx_proto" ]]; then
    echo "rule protoc"
    echo "  command = protoc --proto_path=$(dirname "$onnx_proto") --cpp_out=$OUT/onnx_proto $onnx_proto"
    echo "  description = PROTOC \$out"
    echo "build $OUT/onnx_proto/onnx.pb.cc $OUT/onnx_proto/onnx.pb.h: protoc $onnx_proto"
    echo "build $OUT/obj/onnx.pb.o: cc $OUT/onnx_proto/onnx.pb.cc"
    echo "  flags = $flags -w"
  fi
  # The core's sources the targets need, compiled in batches as the unity build batches them
  # (cmake/unity_batches.cmake: NNX_CORE_SOURCES' order, 16 a batch, build_info.cc alone), less what no target
  # here needs: a batch's file-local names are known not to clash. One archive holds them; each target links
  # from it what it uses, and every target gets the libraries any of them needs.
  order=""
  [[ "$needs" == *" onnx "* ]] && order=" || $OUT/onnx_proto/onnx.pb.h"
  declare -A wanted=()
  for t in "${targets[@]}"; do for s in ${TARGET_SOURCES[$t]}; do wanted[$s]=1; done; done
  mapfile -t core_order < <(sed -n '/^set(NNX_CORE_SOURCES/,/^)/s|^ *src/\(.*\)\.cc$|\1|p' "$ROOT/CMakeLists.txt" |
                            grep -vx 'base/build_info')
  mkdir -p "$OUT/unity"
  members=()
  batch=0
  for ((first = 0; first < ${#core_order[@]}; first += 16)); do
    text=""
    for s in "${core_order[@]:first:16}"; do
      [[ -n "${wanted[$s]+set}" ]] || continue
      text+="#include \"$s.cc\""$'\n'
      unset "wanted[$s]"
    done
    [[ -n "$text" ]] || continue
    file="$OUT/unity/core_$batch.cc"
    printf '%s' "$text" > "$file.new"
    if cmp -s "$file.new" "$file"; then rm -f "$file.new"; else mv "$file.new" "$file"; fi  # rebuilt only when changed
    echo "build $OUT/obj/unity/core_$batch.o: cc $file$order"
    members+=("$OUT/obj/unity/core_$batch.o")
    ((batch++))
  done
  while read -r s; do  # the rest (build_info.cc, the Python module's sources), each alone
    [[ -n "$s" ]] || continue
    echo "build $OUT/obj/$s.o: cc $ROOT/src/$s.cc$order"
    members+=("$OUT/obj/$s.o")
  done < <(printf '%s\n' "${!wanted[@]}" | sort)
  [[ -n "$onnx_proto" ]] && members+=("$OUT/obj/onnx.pb.o")
  archive=""
  if ((${#members[@]} > 0)); then
    archive=" $OUT/libcore.a"
    echo "rule archive"
    echo "  command = rm -f \$out && ar crs \$out \$in"
    echo "  description = AR \$out"
    echo "build $OUT/libcore.a: archive ${members[*]}"
  fi
  libs=""
  [[ "$needs" == *" onnx "* ]] && libs+=" -lprotobuf-lite"
  [[ "$needs" == *" python "* ]] && libs+=" $python_link"
  for t in "${targets[@]}"; do
    echo "build $OUT/obj/$t.o: cc $ROOT/fuzz/$t.cc$order"
    echo "build $OUT/$t: link $OUT/obj/$t.o$archive"
    echo "  libs =$libs"
  done
} > "$OUT/build.ninja"
log "building ${targets[*]} with $CXX (ASan + UBSan + libFuzzer) in $OUT"
if ! ninja -C "$OUT" -f build.ninja >"$OUT/build.log" 2>&1; then
  cat "$OUT/build.log" >&2
  log "build failed"
  exit 1
fi

status=0
scratch="$(mktemp -d "${TMPDIR:-/tmp}/nnx-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
rounds=$(((${#targets[@]} + JOBS - 1) / JOBS))
[[ -n "$SECONDS_PER_TARGET" ]] || SECONDS_PER_TARGET=$((BUDGET_SECONDS / rounds))
((SECONDS_PER_TARGET > 0)) || SECONDS_PER_TARGET=1

# One target's run (its log in $OUT/<target>.log, its exit status in the scratch folder).
fuzz_target() {
  local t="$1" corpus="$scratch/$1/corpus"
  mkdir -p "$corpus" "$scratch/$t/artifacts"
  cp -R "$ROOT/fuzz/corpus/$t/." "$corpus/"
  dict=()
  [[ -f "$ROOT/fuzz/$t.dict" ]] && dict=("-dict=$ROOT/fuzz/$t.dict")
  logfile="$OUT/$t.log"
  run_env=()
  [[ "${TARGET_NEEDS[$t]:-}" == python ]] &&
    run_env=("ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" "PYTHONPATH=$ROOT/fuzz:$ROOT/worker" PYTHONNOUSERSITE=1)
  local started=$SECONDS rc execs need
  env "${run_env[@]}" "$OUT/$t" "$corpus" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$scratch/$t/artifacts/" >"$logfile" 2>&1
  rc=$?
  execs="$(executions "$logfile")"
  # A machine busy with other work runs fewer inputs in the slot: the target goes on, on the corpus it grew,
  # until it has run its bound of executions (for at most the whole budget more, never under 3 slots: the
  # slowest target, profile_file_fuzzer, writes a real file per input and runs about 1,700 inputs a second on
  # an idle machine, 1,000 beside one busy core, where 3 slots left it under its bound), so the bound counts
  # work, not time.
  need=$((MIN_EXECS - ${execs:-0}))
  local more_seconds=$((3 * SECONDS_PER_TARGET))
  ((more_seconds >= BUDGET_SECONDS)) || more_seconds=$BUDGET_SECONDS
  if ((rc == 0 && need > 0)) && ! compgen -G "$scratch/$t/artifacts/*" >/dev/null; then
    env "${run_env[@]}" "$OUT/$t" "$corpus" "${dict[@]}" -runs="$need" -max_total_time="$more_seconds" \
        -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$scratch/$t/artifacts/" \
        >"$logfile.more" 2>&1
    rc=$?
    execs=$((${execs:-0} + $(executions "$logfile.more")))
    cat "$logfile.more" >>"$logfile"
  fi
  echo "$rc" >"$scratch/$t/rc"
  echo "${execs:-0}" >"$scratch/$t/execs"
  echo $((SECONDS - started)) >"$scratch/$t/seconds"
}

# The executions a libFuzzer log reports (0 when it reports none).
executions() {
  local n
  n="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$1" | tail -n1)"
  echo "${n:-0}"
}

log "fuzzing ${#targets[@]} targets, $JOBS at a time, $SECONDS_PER_TARGET s each"
running=0
for t in "${targets[@]}"; do
  fuzz_target "$t" &
  running=$((running + 1))
  if ((running >= JOBS)); then wait -n; running=$((running - 1)); fi
done
wait

printf '%-22s %10s %12s %10s %8s  %s\n' target seconds executions "exec/s" corpus result
total=0
for t in "${targets[@]}"; do
  corpus="$scratch/$t/corpus"
  logfile="$OUT/$t.log"
  rc="$(cat "$scratch/$t/rc" 2>/dev/null || echo 1)"
  execs="$(cat "$scratch/$t/execs" 2>/dev/null || echo 0)"
  seconds="$(cat "$scratch/$t/seconds" 2>/dev/null || echo "$SECONDS_PER_TARGET")"
  speed="$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$logfile" | head -n1)"
  size="$(find "$corpus" -type f | wc -l)"
  result=ok
  found=("$scratch/$t/artifacts/"*)
  if [[ $rc -ne 0 || -e "${found[0]}" ]]; then
    result="FINDING (exit $rc)"
    status=1
    for f in "${found[@]}"; do
      [[ -e "$f" ]] || continue
      cp "$f" "$OUT/findings/"
      log "$t: finding kept as $OUT/findings/$(basename "$f"); reproduce: $OUT/$t $OUT/findings/$(basename "$f")"
    done
    grep -E "ERROR|SUMMARY|runtime error|_fuzzer: |deadly signal|Timeout|out-of-memory" "$logfile" | head -n 20 >&2
    log "$t: full log in $logfile"
  elif ((${execs:-0} < MIN_EXECS)); then
    result="TOO FEW (under $MIN_EXECS)"
    status=1
  fi
  total=$((total + ${execs:-0}))
  printf '%-22s %10s %12s %10s %8s  %s\n' "$t" "$seconds" "${execs:-?}" "${speed:-?}" "$size" "$result"
done
total_result=ok
if ((total < MIN_TOTAL)); then total_result="TOO FEW (under $MIN_TOTAL)"; status=1; fi
printf '%-22s %10s %12s %10s %8s  %s\n' total "$((SECONDS_PER_TARGET * rounds))" "$total" "" "" "$total_result"
exit $status

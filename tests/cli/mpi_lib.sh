# Helpers for the tests of data-parallel heed-train (tests/cli/train_mpi_*.sh). Source after
# lib.sh. Skips the test (77, visibly) when heed was built without MPI (HEED_MPI) or mpirun is
# missing; ctest passes HEED_WITH_MPI and MPIEXEC (tests/CMakeLists.txt).
case "${HEED_WITH_MPI:-}" in
  ON | TRUE | 1) ;;
  *) echo "SKIPPED: heed-train built without MPI (HEED_MPI=OFF or MPI not found): not tested"; exit 77 ;;
esac
MPIRUN=${MPIEXEC:-mpirun}
command -v "$MPIRUN" >/dev/null || { echo "SKIPPED: $MPIRUN not found: not tested"; exit 77; }
# Open MPI refuses root without these (CI runs as root); --oversubscribe: more ranks than cores
# is fine for a test. Shared memory between the ranks of one host, TCP otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
mpi_run() { # NP COMMAND...: mpirun -np NP COMMAND
  local np=$1; shift
  "$MPIRUN" -np "$np" "$@" </dev/null  # (mpirun forwards stdin to rank 0)
}

# Both tests train a tiny model on the first 300 pairs of the embedded sample.
T=$BIN/heed-train
sample=$(dirname "${BASH_SOURCE[0]}")/../../share/heed/sample
head -300 "$sample/train.en" > "$TMP/src"
head -300 "$sample/train.fr" > "$TMP/tgt"
TINY=(--train-src "$TMP/src" --train-tgt "$TMP/tgt" --hidden 16 --embed 8 --vocab-size 300
      --threads 1 --seed 5 -q)

# max_weight_difference A B: the largest |a - b| over every tensor of two heed model files
# (safetensors, f32), and the largest |a| of A; fails if the tensors' names or shapes differ.
max_weight_difference() {
  python3 - "$1" "$2" <<'PY'
import json, struct, sys
def tensors(path):
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == '__metadata__' or t['dtype'] != 'F32':
            continue
        begin, end = t['data_offsets']
        out[name] = (t['shape'], struct.unpack('<%df' % ((end - begin) // 4), data[begin:end]))
    return out
a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
if a.keys() != b.keys() or any(a[k][0] != b[k][0] for k in a):
    sys.exit('different tensors')
diff = max(abs(x - y) for k in a for x, y in zip(a[k][1], b[k][1]))
size = max(abs(x) for k in a for x in a[k][1])
print('%.3g %.3g' % (diff, size))
PY
}

# expect_within NAME A B TOLERANCE: every weight of model files A and B within TOLERANCE.
expect_within() {
  local got
  got=$(max_weight_difference "$2" "$3") || { fail "$1: cannot compare $2 and $3"; return; }
  if awk -v d="${got% *}" -v t="$4" 'BEGIN { exit !(d <= t) }'; then
    ok
  else
    fail "$1: weights differ by up to ${got% *} (tolerance $4; largest weight ${got#* })"
  fi
  echo "$1: max |difference| ${got% *}, largest |weight| ${got#* }"
}

# start_job LIMIT NP COMMAND...: mpirun -np NP COMMAND in the background under a LIMIT-second
# timeout (stdout, stderr in $TMP/out, $TMP/err); sets JOB (wait $JOB: the job's exit status, 124
# when the limit ended it) and RANKS (the pids of the NP processes, once all have started).
start_job() {
  local limit=$1 np=$2; shift 2
  timeout -k 5 "$limit" "$MPIRUN" -np "$np" "$@" </dev/null >"$TMP/out" 2>"$TMP/err" &
  JOB=$!
  RANKS=()
  local launcher=""
  for _ in $(seq 300); do
    sleep 0.1
    [ -n "$launcher" ] || launcher=$(pgrep -P $JOB | head -1)
    [ -n "$launcher" ] && mapfile -t RANKS < <(pgrep -P "$launcher")
    [ ${#RANKS[@]} = "$np" ] && break
  done
}

#!/usr/bin/env bash
# Contract tests of heed-pooling: --help, bad option values, the TSV table, fused against
# unfused, dense marked not applicable for variable lengths and other held-out lengths, the generalisation sets, the
# learning-rate grid's bar, resuming a results file, Ctrl-C in a run and continuing it, a closed
# pipe.
source "$(dirname "$0")/lib.sh"
P=$BIN/heed-pooling
HEADER=$'task\tT\ttrain\tmodel\tlr\tsolved\tsteps_to_solve\tsteps\tbest_accuracy\tfinal_accuracy\tfinal_mse\ttransfer\tparams\tseconds\tbudget_steps\tstop_after\tnote'
# Tiny runs: a few updates on short sequences with a small held-out set, one learning rate.
TINY=(--budget-steps 3 --eval-every 2 --eval-batches 1 --batch-size 5 --threads 1 --learning-rates 0.003)

expect_exit 0 help -- "$P" --help
grep -q -- '--variable-length' "$TMP/out" && ok || fail "help: no --variable-length"

# Bad values: exit 64, one error line naming the option.
expect_exit 64 bad-task -- "$P" --task division
expect_error_line pooling bad-task "task"
expect_exit 64 bad-model -- "$P" --models ff-pool,lstm
expect_error_line pooling bad-model "lstm"
expect_exit 64 bad-fixed-scale -- "$P" --models ff-pool-fixed-0
expect_error_line pooling bad-fixed-scale "ff-pool-fixed-0.*\(0, 20\]"
expect_exit 64 bad-length -- "$P" --lengths 50,11
expect_error_line pooling bad-length "lengths: '11'"
expect_exit 64 bad-length-text -- "$P" --lengths 50,abc
expect_error_line pooling bad-length-text "lengths: 'abc'"
expect_exit 64 bad-steps -- "$P" --budget-steps -1
expect_error_line pooling bad-steps "budget-steps"
expect_exit 64 no-budget -- "$P" --budget-steps 0
expect_error_line pooling no-budget "budget-steps"
expect_exit 64 bad-lr -- "$P" --learning-rates 0.01,0
expect_error_line pooling bad-lr "learning-rates: '0'"
expect_exit 64 bad-variable -- "$P" --variable-length 50
expect_error_line pooling bad-variable "variable-length: '50'"
expect_exit 64 bad-markers -- "$P" --train-markers 5:2
expect_error_line pooling bad-markers "train-markers: '5:2'"
# Values each option accepts but a run cannot take: refused before the table's header is
# written (they were refused after it, with the header already on stdout).
bad_run() { # NAME PATTERN ARGS...
  local name=$1 pattern=$2; shift 2
  expect_exit 64 "$name" -- "$P" "${TINY[@]}" --task addition --lengths 12 --models mean "$@"
  expect_error_line pooling "$name" "$pattern"
  expect_eq "$name-stdout" "$(wc -c < "$TMP/out")" 0
}
bad_run markers-past-length "addition T=12 mean lr 0.003: the second marker's range \[1, 99999\)" \
  --train-markers 1:99999
bad_run test-markers-past-length "the second marker's range \[1, 99999\)" --test-markers 1:99999
expect_exit 64 eval-batches-memory -- "$P" --threads 1 --budget-steps 3 --batch-size 5 \
  --eval-batches 2147483647 --task addition --lengths 12 --models mean --learning-rates 0.003
expect_error_line pooling eval-batches-memory "--batch-size 5 --eval-batches 2147483647: addition T=12 mean lr 0.003 could need .* GiB, more than the .* GiB of memory here"
expect_eq eval-batches-memory-stdout "$(wc -c < "$TMP/out")" 0
expect_exit 64 float-zero-scale -- "$P" --models ff-pool-fixed-1e-320
expect_error_line pooling float-zero-scale "ff-pool-fixed-1e-320.*\(0, 20\]"

# One row per task × T × model × rate after the header, on stdout.
expect_exit 0 stdout -- "$P" "${TINY[@]}" --task addition --lengths 12,14 --models ff-pool,mean,dense
expect_eq stdout-header "$(head -1 "$TMP/out")" "$HEADER"
expect_eq stdout-rows "$(tail -n +2 "$TMP/out" | cut -f1-5 | tr '\t\n' ' |')" \
  "addition 12 fixed ff-pool 0.003|addition 12 fixed mean 0.003|addition 12 fixed dense 0.003|addition 14 fixed ff-pool 0.003|addition 14 fixed mean 0.003|addition 14 fixed dense 0.003|"
awk -F'\t' 'NR > 1 && (NF != 17 || ($6 != "yes" && $6 != "no") || $8 > 3) { exit 1 }' "$TMP/out" &&
  ok || fail "stdout: bad row: $(cat "$TMP/out")"
# Parameter counts: ff-pool and mean do not grow with T; dense does, over the padded length
# ceil(1.1·T): 3W + (14·W + 1)·W + W + 1 = 140501 at T = 12, W = 100.
expect_eq params "$(tail -n +2 "$TMP/out" | cut -f2,4,13 | tr '\t\n' ' |')" \
  "12 ff-pool 10602|12 mean 10501|12 dense 140501|14 ff-pool 10602|14 mean 10501|14 dense 160501|"
# The same seed gives the same table (but for the seconds column).
expect_exit 0 again -- "$P" "${TINY[@]}" --task addition --lengths 12,14
cut -f1-13 "$TMP/out" > "$TMP/again"
"$P" "${TINY[@]}" --task addition --lengths 12,14 2>/dev/null | cut -f1-13 > "$TMP/first"
expect_same deterministic "$TMP/first" "$TMP/again"
# The unfused reference gives the same table (the fused kernel matches it to 1e-5).
"$P" "${TINY[@]}" --task addition --lengths 12,14 --unfused 2>/dev/null | cut -f1-13 > "$TMP/unfused"
expect_same unfused "$TMP/first" "$TMP/unfused"

# Variable lengths: dense is not applicable, said so in the row rather than padded.
expect_exit 0 variable -- "$P" "${TINY[@]}" --task multiplication --variable-length 12:20 \
  --models ff-pool,mean,dense
expect_eq variable-dense "$(grep $'\tdense\t' "$TMP/out" | cut -f2,3,6 | tr '\t' ' ')" "20 variable:12-20 n/a"
grep $'\tdense\t' "$TMP/out" | grep -q 'one fixed length' && ok || fail "variable: no reason given"
expect_eq variable-ran "$(grep -c $'\tvariable:12-20\t\\(ff-pool\\|mean\\)\t0.003\t\\(yes\\|no\\)\t' "$TMP/out")" 2

# Generalisation: held-out sets at other lengths and second-marker positions, scored at the end.
expect_exit 0 transfer -- "$P" "${TINY[@]}" --task addition --lengths 30 --models ff-pool \
  --transfer-lengths 40,60 --train-markers 1:5 --test-markers 5:12
expect_eq transfer-train "$(tail -1 "$TMP/out" | cut -f3)" "markers:1-5"
tail -1 "$TMP/out" | cut -f12 | grep -qx 'T=40:[0-9.]*,T=60:[0-9.]*,markers 5-12:[0-9.]*' && ok ||
  fail "transfer: $(tail -1 "$TMP/out" | cut -f12)"
# dense at other lengths: not applicable, said so (it was an internal check failure); at the same
# length with other markers it runs.
expect_exit 0 transfer-dense -- "$P" "${TINY[@]}" --task addition --lengths 30 --models dense \
  --transfer-lengths 40
expect_eq transfer-dense-row "$(tail -1 "$TMP/out" | cut -f6)" "n/a"
tail -1 "$TMP/out" | grep -q 'not the T = 40 of a held-out set' && ok || fail "transfer-dense: no reason"
expect_exit 0 markers-dense -- "$P" "${TINY[@]}" --task addition --lengths 30 --models dense \
  --train-markers 1:5 --test-markers 5:12
tail -1 "$TMP/out" | cut -f12 | grep -qx 'markers 5-12:[0-9.]*' && ok || fail "markers-dense"
# A variable-length run's held-out set of other marker positions is at its longest T, and says so.
expect_exit 0 markers-variable -- "$P" "${TINY[@]}" --task addition --variable-length 12:20 \
  --models mean --test-markers 5:10
tail -1 "$TMP/out" | cut -f12 | grep -qx 'T=20 markers 5-10:[0-9.]*' && ok ||
  fail "markers-variable: $(tail -1 "$TMP/out" | cut -f12)"

# --bias-out: the positional layer's learned b_t, one row per position the model has (T = 12 and
# the held-out T = 20: padded to 21 and 22 positions); a second call replaces that run's rows and
# keeps the others; a file that is not a bias table is refused (65) and left as it was.
expect_exit 0 bias -- "$P" "${TINY[@]}" --task addition --lengths 12 --models ff-pool-positional,mean \
  --transfer-lengths 20 --bias-out "$TMP/bias.tsv"
expect_eq bias-header "$(head -1 "$TMP/bias.tsv")" $'task\tT\ttrain\tmodel\tlr\tposition\tbias'
expect_eq bias-rows "$(tail -n +2 "$TMP/bias.tsv" | cut -f1-6 | sed -n '1p;$p' | tr '\t\n' ' |')" \
  "addition 12 fixed ff-pool-positional 0.003 0|addition 12 fixed ff-pool-positional 0.003 21|"
expect_exit 0 bias-again -- "$P" "${TINY[@]}" --task both --lengths 12 --models ff-pool-positional \
  --transfer-lengths 20 --bias-out "$TMP/bias.tsv"
expect_eq bias-replaced "$(cut -f1 "$TMP/bias.tsv" | sort | uniq -c | tr -s ' ' | tr '\n' '|')" \
  " 22 addition| 22 multiplication| 1 task|"
echo "something else" > "$TMP/notbias.tsv"
expect_exit 65 bias-not-a-table -- "$P" "${TINY[@]}" --lengths 12 --models ff-pool-positional \
  --bias-out "$TMP/notbias.tsv"
expect_error_line pooling bias-not-a-table "notbias.tsv:1: not a heed-pooling bias table"
expect_eq bias-not-a-table-untouched "$(cat "$TMP/notbias.tsv")" "something else"

# --marked-out: one row per attention run (none for mean pooling), a weight in [0, 1], the tanh
# bound 2e²/(2e² + T − 2) over the 14 padded steps of T = 12 (0.551873), none for the linear
# score.
expect_exit 0 marked -- "$P" "${TINY[@]}" --task addition --lengths 12 \
  --models ff-pool,ff-pool-linear,mean --marked-out "$TMP/marked.tsv"
expect_eq marked-header "$(head -1 "$TMP/marked.tsv")" $'task\tT\ttrain\tmodel\tlr\tmarked_weight\tmarked_bound'
expect_eq marked-rows "$(tail -n +2 "$TMP/marked.tsv" | cut -f4,7 | tr '\t\n' ' |')" "ff-pool 0.551873|ff-pool-linear -|"
awk -F'\t' 'NR > 1 && !($6 >= 0 && $6 <= 1) { bad = 1 } END { exit bad }' "$TMP/marked.tsv" && ok ||
  fail "marked: a weight outside [0, 1]"
# ff-pool-fixed-S: its name in the row; S = 1 is ff-pool's run (every column but the model and
# the seconds); S = 2 bounds two steps' weight by 2e⁴/(2e⁴ + 12) (0.900987).
expect_exit 0 fixed-scale -- "$P" "${TINY[@]}" --task addition --lengths 12 \
  --models ff-pool,ff-pool-fixed-1,ff-pool-fixed-2 --marked-out "$TMP/fixed.tsv"
expect_eq fixed-scale-models "$(tail -n +2 "$TMP/out" | cut -f4 | tr '\n' ' ')" \
  "ff-pool ff-pool-fixed-1 ff-pool-fixed-2 "
expect_eq fixed-scale-one "$(sed -n 3p "$TMP/out" | cut -f5-13,15-)" \
  "$(sed -n 2p "$TMP/out" | cut -f5-13,15-)"
expect_eq fixed-scale-bound "$(tail -1 "$TMP/fixed.tsv" | cut -f7)" 0.900987

# The learning-rate grid: a later rate stops at the updates the best earlier rate needed.
expect_exit 0 grid -- "$P" --task addition --lengths 50 --models ff-pool --learning-rates 0.003,0.001 \
  --budget-steps 3000 --eval-every 500 --threads 1
expect_eq grid-first "$(sed -n 2p "$TMP/out" | cut -f5,6,7,16)" $'0.003\tyes\t500\t0'
expect_eq grid-bar "$(sed -n 3p "$TMP/out" | cut -f5,8,16)" $'0.001\t500\t500'

# --max-params skips the big dense model, saying so.
expect_exit 0 max-params -- "$P" "${TINY[@]}" --task addition --lengths 14 --models dense --max-params 50000
expect_eq max-params-row "$(tail -1 "$TMP/out" | cut -f4,6)" $'dense\tskipped'

# With -v and no terminal, a log line per test (the run's learning curve), on stderr only.
expect_exit 0 test-log -- "$P" "${TINY[@]}" --task addition --lengths 12 --models ff-pool -v
grep -q 'addition T=12 ff-pool lr 0.003: update 2, held-out accuracy [01]\.[0-9]*, batch mse' "$TMP/err" &&
  ok || fail "test-log: $(cat "$TMP/err")"
expect_eq test-log-stdout "$(grep -c 'held-out accuracy' "$TMP/out")" 0

# Ctrl-C in a run: FILE.checkpoint saved, exit 130; the next call continues the run, and its row
# is the uninterrupted run's (every column but the seconds), held-out sets and the variable
# lengths' draws included. A checkpoint of another run is not used: that call starts afresh.
LONG=(--task multiplication --variable-length 20:100 --models ff-pool
      --budget-steps 3000 --eval-every 200 --eval-batches 1 --batch-size 20 --threads 1
      --transfer-lengths 150 --learning-rates)
mkdir "$TMP/ck"
"$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/straight.tsv" 2>/dev/null
"$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/cut.tsv" 2>/dev/null &
pid=$!
for _ in $(seq 400); do [ -s "$TMP/ck/cut.tsv.checkpoint" ] && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
expect_eq interrupted-exit $? 130
[ -s "$TMP/ck/cut.tsv.checkpoint" ] && ok || fail "interrupted: no checkpoint"
expect_exit 0 continued -- "$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/cut.tsv" -v
grep -q 'cut.tsv.checkpoint: continuing at update [1-9]' "$TMP/err" && ok || fail "continued: $(cat "$TMP/err")"
expect_eq continued-row "$(cut -f1-13,15- "$TMP/ck/cut.tsv")" "$(cut -f1-13,15- "$TMP/ck/straight.tsv")"
expect_eq continued-no-checkpoint "$(ls "$TMP/ck")" $'cut.tsv\nstraight.tsv'
cp "$TMP/ck/straight.tsv" "$TMP/ck/other.tsv.checkpoint"  # not even a checkpoint: refused, 65
expect_exit 65 bad-checkpoint -- "$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/other.tsv"
"$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/first.tsv" 2>/dev/null &
pid=$!
for _ in $(seq 400); do [ -s "$TMP/ck/first.tsv.checkpoint" ] && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
# tamper IN OUT flip|nan|KEY=VALUE: "flip" XORs a byte in the middle of the tensor data; "nan"
# sets the first value of the first parameter to NaN, KEY=VALUE a metadata entry, and both store
# the checksums heed computes (FNV-1a 64 with heed's offset basis: the tensors by name, each
# name, its shape as int64s and its bytes; the metadata in key order, each key and value with its
# NUL, the checksums left out), as someone who edits a checkpoint would.
tamper() {
  /usr/bin/python3 - "$@" <<'PYEOF'
import json, math, struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
body = 8 + n
edit = sys.argv[3]
if edit == "flip":
    data[body + (len(data) - body) // 2] ^= 1
    open(sys.argv[2], "wb").write(data)
    sys.exit(0)
def fnv(chunks):
    h = 1469598103934665603
    for chunk in chunks:
        for b in chunk:
            h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h
names = sorted(k for k in header if k != "__metadata__")
meta = header["__metadata__"]
if edit == "nan":
    first = [k for k in names if k.startswith("param/")][0]
    begin = body + header[first]["data_offsets"][0]
    data[begin:begin + 4] = struct.pack("<f", math.nan)
else:
    key, value = edit.split("=", 1)
    meta[key] = value
chunks = []
for k in names:
    chunks.append(k.encode())
    chunks.extend(struct.pack("<q", d) for d in header[k]["shape"])
    lo, hi = header[k]["data_offsets"]
    chunks.append(bytes(data[body + lo:body + hi]))
meta["checksum"] = fnv(chunks)
meta["metadata_checksum"] = fnv([s.encode() + b"\0" for k in sorted(meta)
                                 if k not in ("checksum", "metadata_checksum") for s in (k, meta[k])])
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
open(sys.argv[2], "wb").write(struct.pack("<Q", len(text)) + text + bytes(data[body:]))
PYEOF
}
# A checkpoint whose numbers no run of this budget writes is refused before they are used
# (an edited "steps" of 10^21 overflowed into a negative update count).
if [ -x /usr/bin/python3 ]; then
  tamper "$TMP/ck/first.tsv.checkpoint" "$TMP/ck/edited.tsv.checkpoint" steps=999999999999999999999
  expect_exit 65 checkpoint-steps -- "$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/edited.tsv"
  expect_error_line pooling checkpoint-steps "edited.tsv.checkpoint: metadata 'steps' is 1e\+21, not in \[0, 3000\]"
  rm -f "$TMP/ck/edited.tsv.checkpoint"
else
  echo "SKIPPED checkpoint-steps: no /usr/bin/python3 to edit a checkpoint"
fi
mv "$TMP/ck/first.tsv.checkpoint" "$TMP/ck/other.tsv.checkpoint"
expect_exit 0 other-run -- "$P" "${LONG[@]}" 0.001 -o "$TMP/ck/other.tsv"
grep -q 'a checkpoint of another run' "$TMP/err" && ok || fail "other-run: no warning"
"$P" "${LONG[@]}" 0.001 2>/dev/null | tail -1 | cut -f1-13,15- > "$TMP/ck/expected"
expect_eq other-run-row "$(tail -1 "$TMP/ck/other.tsv" | cut -f1-13,15-)" "$(cat "$TMP/ck/expected")"

# Issue 62. A tampered checkpoint — a flipped byte, or NaN weights with the checksums
# recomputed — is refused (65) naming it, not continued into a permanent "diverged" row; no
# results file is written.
if [ -x /usr/bin/python3 ]; then
  "$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/tamper.tsv" 2>/dev/null &
  pid=$!
  for _ in $(seq 400); do [ -s "$TMP/ck/tamper.tsv.checkpoint" ] && break; sleep 0.05; done
  kill -INT "$pid"
  wait "$pid"
  mv "$TMP/ck/tamper.tsv.checkpoint" "$TMP/ck/good.checkpoint"
  for what in flip nan; do
    tamper "$TMP/ck/good.checkpoint" "$TMP/ck/tamper.tsv.checkpoint" $what
    expect_exit 65 "tampered-$what" -- "$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/tamper.tsv"
    [ $what = flip ] && pattern="tamper.tsv.checkpoint' is corrupt: the checksum of its tensors" ||
      pattern="tamper.tsv.checkpoint: 'param/.*' holds a value that is not finite"
    expect_error_line pooling "tampered-$what" "$pattern"
    [ -e "$TMP/ck/tamper.tsv" ] && fail "tampered-$what: wrote a results table" || ok
  done
  # The untampered one still continues its run.
  mv "$TMP/ck/good.checkpoint" "$TMP/ck/tamper.tsv.checkpoint"
  expect_exit 0 tampered-good -- "$P" "${LONG[@]}" 0.0003 -o "$TMP/ck/tamper.tsv"
  expect_eq tampered-good-row "$(cut -f1-13,15- "$TMP/ck/tamper.tsv")" "$(cut -f1-13,15- "$TMP/ck/straight.tsv")"
else
  echo "SKIPPED tampered-*: no /usr/bin/python3 to edit a checkpoint"
fi

# A value repeated in a list option would run its runs twice (duplicate rows): refused, 64.
SMALL=(--task addition --budget-steps 3 --eval-every 2 --eval-batches 1 --batch-size 5 --threads 1)
for list in "--lengths 12,14,12 --models mean" "--lengths 12 --models mean,ff-pool,mean" \
            "--lengths 12 --models mean --learning-rates 0.003,0.0030" \
            "--lengths 12 --models mean --transfer-lengths 20,20"; do
  option=$(echo "$list" | grep -oE -- '--[a-z-]+ [^ ]*,[^ ]*' | cut -d' ' -f1)
  expect_exit 64 "repeated$option" -- "$P" "${SMALL[@]}" $list
  expect_error_line pooling "repeated$option" "${option#--}: '[^']*' repeats a value given before"
  expect_eq "repeated$option-stdout" "$(wc -c < "$TMP/out")" 0
done

# SIGINT or SIGTERM while a FIFO checkpoint is being opened (before the run's first update):
# nothing to save, so the process stops at once (it ignored both).
source "$(dirname "$0")/lib_signals.sh"
mkdir -p "$TMP/pf"
mkfifo "$TMP/pf/p.tsv.checkpoint"
for sig in INT TERM; do
  env --default-signal="$sig" "$P" "${TINY[@]}" --task addition --lengths 12 --models mean \
    -o "$TMP/pf/p.tsv" 2>"$TMP/err" &
  pid=$!
  sleep 1
  expect_prompt_stop "early-fifo-checkpoint-$sig" "$sig" "$pid"
  [ -e "$TMP/pf/p.tsv" ] && fail "early-fifo-checkpoint-$sig: wrote the table" || ok
done

# Resuming: -o FILE keeps its rows and runs only the missing ones.
mkdir "$TMP/r"
expect_exit 0 results -- "$P" "${TINY[@]}" --task addition --lengths 12 -o "$TMP/r/p.tsv"
expect_eq results-stdout "$(wc -c < "$TMP/out")" 0
expect_eq results-rows "$(wc -l < "$TMP/r/p.tsv")" 3
cp "$TMP/r/p.tsv" "$TMP/first.tsv"
expect_exit 0 resume -- "$P" "${TINY[@]}" --task addition --lengths 12,14 -o "$TMP/r/p.tsv" -v
expect_eq resume-rows "$(wc -l < "$TMP/r/p.tsv")" 5
expect_eq resume-kept "$(head -3 "$TMP/r/p.tsv")" "$(cat "$TMP/first.tsv")"
expect_eq resume-ran-only-new "$(grep -c 'T=12' "$TMP/err")" 0
expect_exit 0 resume-nothing-left -- "$P" "${TINY[@]}" --task addition --lengths 12,14 -o "$TMP/r/p.tsv"
expect_eq resume-nothing-left-rows "$(wc -l < "$TMP/r/p.tsv")" 5
expect_eq no-temp-files "$(ls "$TMP/r")" "p.tsv"
# A file that is not a results table is refused (65), not overwritten.
echo "something else" > "$TMP/r/other.tsv"
expect_exit 65 not-a-table -- "$P" "${TINY[@]}" --lengths 12 -o "$TMP/r/other.tsv"
expect_error_line pooling not-a-table "other.tsv:1: not a heed-pooling results table"
expect_eq not-a-table-untouched "$(cat "$TMP/r/other.tsv")" "something else"
# -o is read as earlier results only when it is a regular file that starts with the header: a
# large file of anything else is refused at once (it was read whole: 24 GB from /dev/full).
head -c 20000000 /dev/zero | tr '\0' 'x' > "$TMP/r/big.bin"
if ! under_sanitizer; then
  (ulimit -v 1000000; exec "$P" "${TINY[@]}" --lengths 12 -o "$TMP/r/big.bin") >"$TMP/out" 2>"$TMP/err"
  expect_eq big-not-a-table-exit $? 65
  expect_error_line pooling big-not-a-table "big.bin:1: not a heed-pooling results table"
fi
# Nothing is written beside -o when it is not a regular file: a /dev/full.checkpoint outlived the
# run and failed the next one (and this test, the suite run twice). A FIFO gets the rows, and no
# FIFO.checkpoint either.
before=$([ -e /dev/full.checkpoint ] && echo there || echo absent)
expect_exit 74 dev-full -- "$P" "${TINY[@]}" --lengths 12 -o /dev/full
expect_error_line pooling dev-full "/dev/full"
[ "$before" = absent ] && [ -e /dev/full.checkpoint ] && { fail "dev-full-no-side-file: /dev/full.checkpoint written"; rm -f /dev/full.checkpoint; } || ok
mkfifo "$TMP/r/fifo"
cat "$TMP/r/fifo" > "$TMP/r/from-fifo" &
reader=$!
expect_exit 0 fifo-output -- "$P" "${TINY[@]}" --task addition --lengths 12 --models mean -o "$TMP/r/fifo"
wait $reader
expect_eq fifo-output-rows "$(wc -l < "$TMP/r/from-fifo")" 2
expect_eq fifo-output-no-side-file "$(ls "$TMP/r" | grep -c 'fifo\.')" 0
expect_exit 74 unwritable -- "$P" "${TINY[@]}" --lengths 12 -o "$TMP/none/p.tsv"
expect_error_line pooling unwritable "none"

# A closed pipe ends the run quietly.
"$P" "${TINY[@]}" --lengths 12,14 2>"$TMP/err" | head -1 > "$TMP/head"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || [ "$status" = 141 ] && ok || fail "sigpipe: exit $status"
expect_eq sigpipe-stderr "$(cat "$TMP/err")" ""
expect_eq sigpipe-header "$(cat "$TMP/head")" "$HEADER"
finish

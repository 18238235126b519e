#!/usr/bin/env bash
# bench/train_primitives.py on a fixture of oneDNN 2.6 verbose lines: the FLOPs it counts for an
# LSTM step (forward 2·rows·4H·(input + state), backward twice that) and a matmul, RNN sequences
# of every length in one row, reorders named by their layouts, and a clear refusal of input
# without execution lines.
source "$(dirname "$0")/lib.sh"
ROOT=${2:?usage: train_primitives.sh BIN_DIR SOURCE_DIR}
lstm='src_layer_bf16::blocked:abc:f0 wei_layer_bf16::blocked:abdEC32e2c:f0,attr-scratchpad:user ,alg:vanilla_lstm direction:unidirectional_left2right activation:undef'
cat > "$TMP/verbose" <<LINES
onednn_verbose,info,oneDNN v2.6.3 (commit n/a)
onednn_verbose,create:cache_miss,cpu,rnn,brgemm,forward_training,$lstm,l1t1mb64sic512slc768dhc512dic512,0.5
onednn_verbose,exec,cpu,rnn,brgemm,forward_training,$lstm,l1t1mb64sic512slc768dhc512dic512,0.25
onednn_verbose,exec,cpu,rnn,brgemm,forward_training,$lstm,l1t1mb64sic512slc768dhc512dic512,0.75
onednn_verbose,exec,cpu,rnn,brgemm,backward,$lstm,l1t1mb64sic512slc768dhc512dic512,4
onednn_verbose,exec,cpu,rnn,brgemm,forward_training,$lstm,l1t12mb64sic256slc256dhc256dic256,0.5
onednn_verbose,exec,cpu,rnn,brgemm,forward_training,$lstm,l1t4mb64sic256slc256dhc256dic256,0.5
onednn_verbose,exec,cpu,matmul,brg:avx512_core_bf16,undef,src_bf16::blocked:ab:f0 wei_bf16::blocked:BA16a64b2a:f0,attr-scratchpad:user ,,4x8:8x16:4x16,0.001
onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 dst_bf16:p:blocked:BA16a64b2a:f0,,,4371x512,0.5
LINES
/usr/bin/python3 "$ROOT/bench/train_primitives.py" --updates 2 --peak 1000 < "$TMP/verbose" \
  > "$TMP/out" 2> "$TMP/err"
expect_eq exit $? 0
row() { awk -F'\t' -v p="$1" -v q="$2" '$2 == p && $3 == q' "$TMP/out"; }
# 2·64·2048·1280 = 335,544,320 FLOP a step; two steps in 1 ms over 2 updates.
expect_eq lstm-forward "$(row forward_training l1t1mb64sic512slc768dhc512dic512)" \
  "$(printf 'rnn\tforward_training\tl1t1mb64sic512slc768dhc512dic512\t2\t0.50\t0.336\t671.1\t0.671')"
expect_eq lstm-backward "$(row backward l1t1mb64sic512slc768dhc512dic512)" \
  "$(printf 'rnn\tbackward\tl1t1mb64sic512slc768dhc512dic512\t1\t2.00\t0.336\t167.8\t0.168')"
# 16 steps of 2·64·1024·512 FLOP in 1 ms.
expect_eq sequences "$(row forward_training 'l1t*mb64sic256slc256dhc256dic256')" \
  "$(printf 'rnn\tforward_training\tl1t*mb64sic256slc256dhc256dic256\t2\t0.50\t0.537\t1073.7\t1.074')"
expect_eq matmul "$(row undef 4x8:8x16:4x16)" \
  "$(printf 'matmul\tundef\t4x8:8x16:4x16\t1\t0.00\t0.000\t1.0\t0.001')"
expect_eq reorder "$(row undef 'f32:ab -> bf16:BA16a64b2a 4371x512')" \
  "$(printf 'reorder\tundef\tf32:ab -> bf16:BA16a64b2a 4371x512\t1\t0.25\t-\t-\t-')"
expect_eq total "$(tail -n 1 "$TMP/out")" \
  "$(printf '(all oneDNN primitives)\t-\t-\t7\t3.25\t-\t-\t-')"
expect_eq all-rnn "$(grep '^(all rnn)' "$TMP/out")" "$(printf '(all rnn)\t-\t-\t5\t3.00\t-\t-\t-')"
expect_eq first-row "$(sed -n 2p "$TMP/out" | cut -f1-3)" \
  "$(printf 'rnn\tbackward\tl1t1mb64sic512slc768dhc512dic512')"
# No execution lines (ONEDNN_VERBOSE unset): an error, not an empty table.
grep -v ',exec,' "$TMP/verbose" | /usr/bin/python3 "$ROOT/bench/train_primitives.py" \
  --updates 2 --peak 1000 > "$TMP/out" 2> "$TMP/err"
expect_eq no-exec-exit $? 1
grep -q 'no oneDNN execution lines' "$TMP/err" && ok || fail "no-exec message: $(cat "$TMP/err")"
/usr/bin/python3 "$ROOT/bench/train_primitives.py" --updates 0 --peak 1000 < "$TMP/verbose" \
  > "$TMP/out" 2> "$TMP/err"
expect_eq zero-updates-exit $? 1
finish

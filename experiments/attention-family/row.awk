# The attention family's row of one mechanism from heed-train's metrics file (columns: step epoch
# loss perplexity lr tokens/s val-ppl val-BLEU elapsed event), with -v m (the mechanism), min
# (minutes), greedy and beam (test2016 BLEU) from the recipe's row:
#   mechanism  updates  minutes  first_train_ppl  last_train_ppl  best_val_ppl  val_bleu  test2016_greedy  test2016_beam  target_tok_per_s
NR == 1 { next }
$4 != "" {
  if (first == "") first = $4
  last = $4
  # tokens/s: the median over logging intervals; the short last one (a few steps before the
  # time limit) says nothing.
  if ($6 != "" && $1 - step >= 10) speeds[++n] = $6
  step = $1
}
$7 != "" && (best == "" || $7 + 0 < best + 0) { best = $7 }
$8 != "" { vbleu = $8 }
END {
  for (i = 2; i <= n; i++) for (j = i; j > 1 && speeds[j - 1] + 0 > speeds[j] + 0; j--) {
    t = speeds[j]; speeds[j] = speeds[j - 1]; speeds[j - 1] = t
  }
  tps = n % 2 ? speeds[(n + 1) / 2] : int((speeds[n / 2] + speeds[n / 2 + 1]) / 2 + 0.5)
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m, step, min, first, last, best, vbleu, greedy, beam,
    tps
}

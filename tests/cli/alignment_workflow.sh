#!/usr/bin/env bash
# The Hansards attention study's Snakemake workflow (experiments/alignment-hansards) under
# experiments/profiles/local: as committed it has nothing to do (its rows are its targets, no
# scratch or corpus needed), its page rule regenerates docs/studies/alignment-hansards.md's tables,
# the plot and the heatmap page byte for byte (into a copy of the repository's layout: the page
# links them by relative paths), and its plan from nothing is a training per model of the plan; a
# tiny study end to end on a stand-in for the gold set and the corpus (the embedded English–French
# sample, a made-up gold), two mechanisms in both directions: every unit's rows in results/, the
# baselines', the heatmaps, the comparisons by heed-align score --system and the page, then nothing
# to do; the recipe (snakemake recipe: plain and guided models beside ibm2) on the same corpus, its
# table of scores, then nothing to do; Ctrl-C in the middle of a training, then the same command
# resumes it from its checkpoint. Skipped (77) without snakemake, python3-matplotlib or
# python3-jinja2.
#   tests/cli/alignment_workflow.sh BIN_DIR SOURCE_DIR
source "$(dirname "$0")/lib.sh"
ROOT=${DATA:?usage: alignment_workflow.sh BIN_DIR SOURCE_DIR}
need_snakemake
study=$ROOT/experiments/alignment-hansards
missing=$(/usr/bin/python3 "$study/report.py" --check 2>&1) || { echo "skipped: $missing"; exit 77; }
export MPLCONFIGDIR=$TMP/matplotlib
hansards=(nice -n 10 snakemake -s "$study/Snakefile" -d "$TMP/wd" --profile "$ROOT/experiments/profiles/local"
          --cores 2)

# The study as committed: nothing to do, even without its scratch or its data.
expect_exit 0 committed -- "${hansards[@]}" -n --config bin="$BIN" work="$TMP/nowhere" data="$TMP/nowhere"
grep -q 'Nothing to be done' "$TMP/out" && ok || fail "committed study: $(tail -20 "$TMP/out")"
# Its page, plot and heatmap page regenerated from results/, in a copy of the repository's
# layout: the same bytes (the gold set's sentences from the shared data when it is there, as the
# committed heatmap page was made; without it the page names no sentences).
copy=$TMP/copy/experiments/alignment-hansards/results
mkdir -p "$TMP/copy/docs/studies" "$(dirname "$copy")"
cp -r "$study/results" "$copy"
cp "$ROOT/docs/studies/alignment-hansards.md" "$TMP/copy/docs/studies/alignment-hansards.md"
sed -i 's/^| `dot` | 1 |.*/| stale |/' "$TMP/copy/docs/studies/alignment-hansards.md"
rm "$copy/emergence.svg" "$copy/heatmaps.html"
expect_exit 0 page -- "${hansards[@]}" page --config bin="$BIN" results="$copy" \
  page="$TMP/copy/docs/studies/alignment-hansards.md"
expect_same page "$ROOT/docs/studies/alignment-hansards.md" "$TMP/copy/docs/studies/alignment-hansards.md"
expect_same plot "$study/results/emergence.svg" "$copy/emergence.svg"
if [ -d "$ROOT/../shared/data/hansards-naacl2003-en-fr" ]; then
  expect_same heatmap-page "$study/results/heatmaps.html" "$copy/heatmaps.html"
else
  echo "not compared: the heatmap page (no ../shared/data/hansards-naacl2003-en-fr)"
fi

# The plan from nothing: a training per mechanism, seed and direction of config.yaml.
expect_exit 0 plan -- "${hansards[@]}" -n --config bin="$BIN" work="$TMP/plan" results="$TMP/plan-results"
queue=$(sed -n '/^queue:/,/^directions:/p' "$study/config.yaml" | grep -c '^  - ')
expect_eq trainings "$(grep -c '^checkpoint train:' "$TMP/out")" $((2 * queue))
grep -q "$TMP/plan/models/dot-s1.rev/train.done" "$TMP/out" && ok || fail "plan: no dot-s1.rev"
# The plan's units are the committed ones: a row file per mechanism and seed of the queue.
expect_eq committed-units "$(cd "$study/results/training" && ls | sed 's/\.tsv$//' | sort | tr '\n' ' ')" \
  "$(sed -n '/^queue:/,/^directions:/s/^  - \([a-z-]*\):\([0-9]*\).*/\1-s\2/p' "$study/config.yaml" | sort | tr '\n' ' ')"
# The same plan for SLURM (experiments/profiles/slurm, a dry run): a training asks for 4 GB and
# 30 minutes plus one per 100 updates.
expect_exit 0 slurm-plan -- nice -n 10 snakemake -s "$study/Snakefile" -d "$TMP/wd" -n \
  --profile "$ROOT/experiments/profiles/slurm" --config bin="$BIN" work="$TMP/plan" results="$TMP/plan-results"
grep -A8 '^checkpoint train:' "$TMP/out" | grep -q 'resources: .*mem_mb=4000.*runtime=90' && ok ||
  fail "slurm plan: $(grep -A8 '^checkpoint train:' "$TMP/out" | grep resources | head -1)"

# A tiny study: the gold set, Tatoeba and Multi30k stood in for by the embedded sample; a gold
# that links the i-th words (sure) and the next (possible).
sample=$ROOT/share/heed/sample
D=$TMP/data
mkdir -p "$D/hansards-naacl2003-en-fr" "$D/tatoeba-eng-fra" "$D/multi30k/raw"
gold=$D/hansards-naacl2003-en-fr
head -6 "$sample/test.en" > "$gold/test.e"
head -6 "$sample/test.fr" > "$gold/test.f"
head -4 "$sample/valid.en" > "$gold/trial.e"
head -4 "$sample/valid.fr" > "$gold/trial.f"
for set in test trial; do
  paste -d '\t' "$gold/$set.e" "$gold/$set.f" | awk -F'\t' -v talp="$gold/$set.talp" '{
    ne = split($1, e, " "); nf = split($2, f, " "); n = ne < nf ? ne : nf; line = ""
    for (i = 1; i <= n; i++) {
      printf "%04d %d %d S\n", NR, i, i
      if (i < nf) printf "%04d %d %d P\n", NR, i, i + 1
      line = line (i > 1 ? " " : "") i "-" i
    }
    print line > talp }' > "$gold/$set.wa.nonullalign"
done
paste -d '\t' <(sed -n 1,300p "$sample/train.en") <(sed -n 1,300p "$sample/train.fr") |
  sed 's/$/\tCC-BY 2.0/' | gzip > "$D/tatoeba-eng-fra/fra.txt.gz"
sed -n 301,500p "$sample/train.en" > "$D/multi30k/raw/train.en"
sed -n 301,500p "$sample/train.fr" > "$D/multi30k/raw/train.fr"
# The page one folder under docs/, as the study's own: the status line names results/ from the
# repository the docs/ folder is in.
page=$TMP/tiny/docs/studies/alignment-hansards.md
mkdir -p "$(dirname "$page")"
printf '%s\n' '# top' '' \
  '<!-- alignment-mechanisms: generated by experiments/alignment-hansards/report.py; do not edit -->' \
  old '<!-- end of alignment-mechanisms -->' '' '# bottom' > "$page"
R=$TMP/tiny/results
settings=(bin="$BIN" data="$D" work="$TMP/work" results="$R" page="$page"
          threads=1 precision=f32 'queue=["dot:1", "general:1"]' 'curve=[dot]' 'heatmap_pairs=[0, 2]'
          updates=20 save_every=10 valid_every=10 warmup=2 valid_pairs=10 valid_bleu=2
          hansards_copies=2 model_options="--hidden 16 --embed 8 --dropout 0.1"
          'recipe={updates: 10, guided_updates: 10}')
tiny=("${hansards[@]}" --config "${settings[@]}")
expect_exit 0 tiny -- "${tiny[@]}"
[ -s "$R/aer/dot-s1.tsv" ] && ok || fail "tiny: $(grep -i 'error' "$TMP/err" | head -5)"
for table in aer trial; do
  expect_eq "$table-files" "$(cd "$R/$table" && echo *)" "diagonal.tsv dot-s1.tsv general-s1.tsv ibm2.tsv"
done
# A unit: 6 readings a direction, 10 symmetrized, agree; a baseline: 2 directions, 5 symmetrized.
expect_eq unit-rows "$(tail -n +2 "$R/aer/dot-s1.tsv" | cut -f1,2,4,5 | tr '\t\n' ' |')" \
  "$(for r in fwd rev; do for m in argmax shift threshold; do printf 'dot 1 %s %s|' $r $m; done; done
     for m in argmax shift; do for s in intersect union grow-diag grow-diag-final grow-diag-final-and; do
       printf 'dot 1 %s %s|' $s $m; done; done; printf 'dot 1 agree -|')"
expect_eq baseline-rows "$(tail -n +2 "$R/trial/ibm2.tsv" | cut -f4 | tr '\n' ' ')" \
  "fwd rev intersect union grow-diag grow-diag-final grow-diag-final-and "
expect_eq scored "$(cat "$R"/aer/*.tsv "$R"/trial/*.tsv | awk -F'\t' '$1 != "system" && $12 != 6 && $12 != 4' | wc -l)" 0
# The step column: the update of the fwd model's best validation.
best=$(awk -F'\t' 'NR > 1 && $7 != "" && $7 != "nan" && (b == "" || $7 + 0 < b + 0) { b = $7; s = $1 } END { print s }' \
  "$R/metrics/dot-s1.fwd.tsv")
expect_eq step "$(tail -n +2 "$R/aer/dot-s1.tsv" | cut -f3 | sort -u)" "$best"
expect_eq checkpoints "$(tail -n +2 "$R/checkpoints/dot-s1.tsv" | cut -f3 | sort -u | tr '\n' ' ')" "10 20 "
expect_eq training "$(cat "$R"/training/*.tsv | grep -v '^system' | cut -f1-4 | tr '\t\n' ' |')" \
  "dot 1 fwd 20|dot 1 rev 20|general 1 fwd 20|general 1 rev 20|"
expect_eq heatmaps "$(cd "$R/heatmaps" && echo *)" "dot.0.svg dot.2.svg general.0.svg general.2.svg"
expect_eq heatmap-xml "$(xml_count "$R/heatmaps/dot.2.svg" root)" "{http://www.w3.org/2000/svg}svg"
# The comparisons: heed-align score --system's tables, each system's runs scored on the test pairs.
for family in aligner diagonal dot; do
  grep -q '^# hierarchical bootstrap' "$R/compare/$family.tsv" && ok ||
    fail "compare/$family.tsv: $(head -3 "$R/compare/$family.tsv")"
done
expect_eq dot-family "$(grep -v '^#' "$R/compare/dot.tsv" | tail -n +2 | cut -f1 | tr '\n' ' ')" "dot general "
expect_eq left-out "$(cat "$R/compare/left-out.tsv")" "$(printf 'system\tseed\treason')"
# The page: the status line from the plan, the tables between the markers, the rest untouched.
grep -q '^4 of 4 models trained (`results/`; the plan is in `config.yaml`)' "$page" &&
  ok || fail "page: $(sed -n 3,4p "$page" | cut -c1-200)"
expect_eq page-ends "$(head -1 "$page")/$(tail -1 "$page")" "# top/# bottom"
[ -s "$R/emergence.svg" ] && [ -s "$R/heatmaps.html" ] && ok || fail "no plot or heatmap page: $(ls "$R")"
expect_exit 0 tiny-done -- "${tiny[@]}" -n
grep -q 'Nothing to be done' "$TMP/out" && ok || fail "tiny study again: $(grep -A3 '^rule\|^localrule\|^checkpoint' "$TMP/out" | head -12)"

# The recipe (snakemake recipe) on the same corpus: ibm2's rows, the plain models' by argmax and
# shift, the guided ones' by argmax, each symmetrized, and agree; every row scored on the test
# pairs; then nothing to do.
expect_exit 0 recipe -- "${hansards[@]}" recipe --config "${settings[@]}"
scores=$TMP/work/recipe/scores.tsv
expect_eq recipe-runs "$(tail -n +2 "$scores" | cut -f1 | uniq -c | tr -s ' ' | tr '\n' '|')" \
  " 7 ibm2| 15 attention| 8 guided|"
expect_eq recipe-guided "$(awk -F'\t' '$1 == "guided" { printf "%s ", $2 }' "$scores")" \
  "fwd-argmax rev-argmax.en-fr intersect-argmax union-argmax grow-diag-argmax grow-diag-final-argmax grow-diag-final-and-argmax agree "
expect_eq recipe-scored "$(tail -n +2 "$scores" | awk -F'\t' '$10 != 6' | wc -l)" 0
expect_eq recipe-seconds "$(awk -F'\t' '$1 == "ibm2" && $2 ~ /^(fwd|rev)$/ && $3 ~ /^[0-9.]+$/' "$scores" | wc -l)" 2
expect_exit 0 recipe-done -- "${hansards[@]}" recipe -n --config "${settings[@]}"
grep -q 'Nothing to be done' "$TMP/out" && ok || fail "recipe again: $(tail -5 "$TMP/out")"

# Ctrl-C (SIGINT to Snakemake's process group, as a terminal sends it) once a training of 600
# updates has saved its first checkpoint: no train.done; the same command resumes it from the
# checkpoint (its metrics go on) to the end.
model=$TMP/work/models/dot-s2.fwd
longer=("${hansards[@]}" "$model/train.done" --config "${settings[@]}" 'queue=["dot:2"]'
        'directions=[fwd]' updates=600 save_every=100 valid_every=100)
interrupt_once "$model/checkpoint.heed" 120 0 -- "${longer[@]}"
[ $? != 0 ] && ok || fail "interrupted: exit 0 (the interrupt came too late?)"
[ ! -e "$model/train.done" ] && ok || fail "interrupted: train.done written"
[ -f "$model/checkpoint.heed" ] && ok || fail "interrupted: no checkpoint; $(tail -3 "$TMP/first.err")"
before=$(tail -n +2 "$model/metrics.tsv" | cut -f1 | tr '\n' ' ')
expect_exit 0 resumed -- "${longer[@]}"
grep -q 'alignment-hansards: dot-s2.fwd: resuming from its checkpoint' "$TMP/err" && ok ||
  fail "no resume: $(grep -i 'error\|alignment-hansards' "$TMP/err" | head -5)"
after=$(tail -n +2 "$model/metrics.tsv" | cut -f1 | tr '\n' ' ')
expect_eq metrics-kept "${after:0:${#before}}" "$before"
[ -f "$model/model.step-600.heed" ] || grep -q early-stop "$model/metrics.tsv" && ok ||
  fail "resumed: not trained to the end: $after"
finish

#!/usr/bin/env bash
# Layering lint: the module dependencies and vendor-header rules of docs/architecture.md, enforced.
# The table between the "layering" markers in docs/architecture.md is the rule; this script reads it.
set -u
root=${1:?usage: layering.sh SOURCE_DIR}
cd "$root" || exit 2
status=0
complain() { echo "$*"; status=1; }

# 1. Vendor headers only where they are allowed.
vendor() { # pattern, allowed-path regex, what[, the directories searched (default lib)]
  local pattern=$1 allowed=$2 what=$3 hits
  shift 3
  hits=$(grep -rnE "#include *[<\"]($pattern)" "${@:-lib}" | grep -vE "$allowed" || true)
  [ -z "$hits" ] || complain "$what included outside its allowed place:"$'\n'"$hits"
}
vendor 'dnnl|oneapi/' '^lib/heed/onednn/[^:]+\.cpp:' 'oneDNN'
vendor 'unicode/' '^lib/heed/text/unicode\.cpp:' 'ICU'
vendor 'boost/' '^$' 'Boost'
vendor 'mpi\.h' '^lib/heed/train/communicator_mpi\.cpp:' 'MPI'
vendor 'nlohmann/' '^lib/heed/[^:]+\.cpp:' 'nlohmann/json (headers must not include it)'
vendor 'spdlog/' '^lib/heed/[^:]+\.cpp:' 'spdlog (headers must not include it)'
# Threads: OpenMP's API only where the thread count is set and in the one threading helper
# (kernels' `#pragma omp` loops need no header); no std::thread pools beside it in the library.
vendor 'omp\.h' '^lib/heed/(onednn/context|common/parallel)\.cpp:' \
  'omp.h (parallel loops: lib/heed/common/parallel.h)' lib tools bench
vendor 'thread>' '^lib/heed/train/communicator_mpi\.cpp:' \
  '<thread> (parallel loops: lib/heed/common/parallel.h; the MPI watchdog is a thread of its own)'
if grep -rnE '#include *"' lib | grep -E '"\.\./|tools/' >/dev/null; then
  complain "lib/ must not include tools/ or use relative parent includes"
fi

# 2. Module dependencies: "module|dep dep ..." per row of the documented table.
table=$(sed -n '/<!-- layering:/,/<!-- end layering -->/p' docs/architecture.md |
        awk -F'|' 'NF >= 4 && $2 !~ /module|---/ {
                     m = $2; d = $3; gsub(/ /, "", m); gsub(/[—,]/, " ", d); print m "|" d }')
[ -n "$table" ] || complain "docs/architecture.md: no layering table between the markers"
declare -A allowed
while IFS='|' read -r module deps; do
  [ -d "lib/heed/$module" ] || complain "docs/architecture.md: layering table names '$module', which is not in lib/heed"
  allowed[$module]=" $module $deps "
done <<< "$table"
for dir in lib/heed/*/; do
  module=$(basename "$dir")
  if [ -z "${allowed[$module]+x}" ]; then
    complain "lib/heed/$module is missing from the layering table in docs/architecture.md"; continue
  fi
  while IFS=: read -r file line used; do
    [ -n "$file" ] || continue
    case "${allowed[$module]}" in
      *" $used "*) ;;
      *) complain "$file:$line: $module may not include heed/$used (docs/architecture.md, layering)" ;;
    esac
  done < <(grep -rnoE '#include *"heed/[a-z_]+/' "$dir" | sed -E 's|#include *"heed/([a-z_]+)/|\1|')
done

# 3. The table itself is a layering: no cycles.
edges=$(while IFS='|' read -r module deps; do
          for d in $deps; do [ "$d" = "$module" ] || echo "$d $module"; done
        done <<< "$table")
if ! printf '%s\n' "$edges" | tsort >/dev/null 2>&1; then
  complain "docs/architecture.md: the layering table has a cycle: $(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null | head -3 | tr '\n' ' ')"
fi

[ $status = 0 ] && echo "layering: ok ($(wc -l <<< "$table") modules)"
exit $status

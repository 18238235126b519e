#!/usr/bin/env bash
# Layering lint (style.md §3.2): vendor headers only where they are allowed.
set -u
root=${1:?usage: include_discipline.sh SOURCE_DIR}
cd "$root" || exit 2
status=0
violations() { # pattern, allowed-path regex, what
  local hits
  hits=$(grep -rnE "#include *[<\"]($1)" lib | grep -vE "$2" || true)
  if [ -n "$hits" ]; then
    echo "$3 included outside its allowed place:"; echo "$hits"; status=1
  fi
}
violations 'dnnl|oneapi/' '^lib/heed/onednn/[^:]+\.cpp:' 'oneDNN'
violations 'unicode/' '^lib/heed/text/unicode\.cpp:' 'ICU'
violations 'boost/' '^$' 'Boost'
violations 'nlohmann/' '^lib/heed/[^:]+\.cpp:' 'nlohmann/json (headers must not include it)'
violations 'spdlog/' '^lib/heed/[^:]+\.cpp:' 'spdlog (headers must not include it)'
if grep -rnE '#include *"' lib | grep -E '"\.\./|tools/' >/dev/null; then
  echo "lib/ must not include tools/ or use relative parent includes"; status=1
fi
[ $status = 0 ] && echo "include discipline: ok"
exit $status

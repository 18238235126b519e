#!/usr/bin/env bash
# Formatting lint: every C++ file is as clang-format 14 (Debian 12's) writes it with the repo's
# .clang-format. Other major versions format differently, so they skip (77) instead of failing.
set -u
root=${1:?usage: clang_format.sh SOURCE_DIR}
cd "$root" || exit 2
if ! command -v clang-format >/dev/null; then
  echo "SKIPPED: clang-format not installed"; exit 77
fi
version=$(clang-format --version | sed -nE 's/.*version ([0-9]+)\..*/\1/p')
if [ "$version" != 14 ]; then
  echo "SKIPPED: clang-format $version, the house format is clang-format 14's"; exit 77
fi
mapfile -t files < <(find lib tools tests bench -name '*.cpp' -o -name '*.h' | sort)
report=$(clang-format --dry-run --Werror "${files[@]}" 2>&1)
if [ -n "$report" ]; then
  echo "$report" | grep -E 'warning|error' | cut -d: -f1 | sort | uniq -c | sed 's/^/not clang-formatted: /'
  echo "fix with: clang-format -i \$(find lib tools tests bench -name '*.cpp' -o -name '*.h')"
  exit 1
fi
echo "clang-format: ${#files[@]} files ok"

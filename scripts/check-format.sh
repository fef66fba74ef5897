#!/usr/bin/env bash
# Fails when a C/C++ file git tracks is not formatted as the root
# .clang-format says. The tree is formatted with Debian 12's clang-format 14;
# another version breaks some lines differently, so the check is skipped
# (exit 77) with another version, without clang-format or outside a git
# checkout. To fix a failure: git clang-format, or clang-format -i FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null || ! command -v git >/dev/null ||
   ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "skipped: needs clang-format and a git checkout"
  exit 77
fi
version=$(clang-format --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$version" != 14 ]; then
  echo "skipped: clang-format $version, the tree is formatted by version 14"
  exit 77
fi
git ls-files -z '*.c' '*.cc' '*.cpp' '*.h' |
  xargs -0 clang-format --style=file --dry-run --Werror
echo "every tracked C/C++ file is formatted"

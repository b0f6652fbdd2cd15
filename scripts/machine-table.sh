#!/usr/bin/env bash
# Regenerates docs/validation.md's predicted-vs-measured tables ("Your own machine") from the
# committed measurement files, data/measurements/*.json (one per machine, named
# <date>-<machine>.json), oldest name first: the output of
# `skblab calibrate high-order-alloc --machine FILE` (table format) of every file replaces the
# text between <!-- machine-table --> and <!-- /machine-table -->, and their summary lines the
# text between <!-- machine-summary --> and <!-- /machine-summary --> (the closing note quotes
# them). Arguments, when given, are the files (default: every committed one).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then files=("$@"); else files=(data/measurements/*.json); fi
tables="" summaries=""
for file in "${files[@]}"; do
  table="$(cargo run --release -q -p skblab-core --features cli --bin skblab -- calibrate high-order-alloc --machine "$file")"
  tables+=$'```text\n'"\$ skblab calibrate high-order-alloc --machine $file"$'\n'"$table"$'\n```\n\n'
  summaries+="> $(grep '^summary:' <<<"$table" || true) ($file)"$'\n>\n'
done
doc=docs/validation.md
for m in machine-table machine-summary; do
  grep -q "<!-- $m -->" "$doc" || { echo "machine-table.sh: no <!-- $m --> marker in $doc" >&2; exit 1; }
done
TABLES="${tables%$'\n\n'}" SUMMARIES="${summaries%$'\n>\n'}" awk '
  /<!-- machine-table -->/ { print; print ENVIRON["TABLES"]; skip = 1; next }
  /<!-- machine-summary -->/ { print; print ENVIRON["SUMMARIES"]; skip = 1; next }
  /<!-- \/machine-(table|summary) -->/ { skip = 0 }
  !skip { print }
' "$doc" > "$doc.new"
mv "$doc.new" "$doc"
echo "machine-table.sh: $doc updated from ${files[*]}" >&2

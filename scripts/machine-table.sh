#!/usr/bin/env bash
# Regenerates docs/validation.md's predicted-vs-measured table ("Your own machine") from a
# measurement file: the output of `skblab calibrate high-order-alloc --machine FILE` (table
# format) replaces the text between <!-- machine-table --> and <!-- /machine-table -->, and
# its summary line the text between <!-- machine-summary --> and <!-- /machine-summary -->
# (the closing note quotes it).
set -euo pipefail
cd "$(dirname "$0")/.."
file="${1:-data/measurements/reference.json}"
table="$(cargo run --release -q -p skblab-core --features cli --bin skblab -- calibrate high-order-alloc --machine "$file")"
summary="$(grep '^summary:' <<<"$table" || true)"
doc=docs/validation.md
for m in machine-table machine-summary; do
  grep -q "<!-- $m -->" "$doc" || { echo "machine-table.sh: no <!-- $m --> marker in $doc" >&2; exit 1; }
done
TABLE="$table" SUMMARY="$summary" FILE="$file" awk '
  /<!-- machine-table -->/ { print; print "```text"; print "$ skblab calibrate high-order-alloc --machine " ENVIRON["FILE"]; print ENVIRON["TABLE"]; print "```"; skip = 1; next }
  /<!-- machine-summary -->/ { print; print "> " ENVIRON["SUMMARY"] " (" ENVIRON["FILE"] ")"; skip = 1; next }
  /<!-- \/machine-(table|summary) -->/ { skip = 0 }
  !skip { print }
' "$doc" > "$doc.new"
mv "$doc.new" "$doc"
echo "machine-table.sh: $doc updated from $file" >&2

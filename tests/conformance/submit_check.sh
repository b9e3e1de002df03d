#!/bin/sh
# One submit conformance vector through `kite submit -dry-run`: lays out the tree the vectors'
# README describes in a temporary directory, runs the file there and compares with
# expected.tsv (attributes, <absent> ones) or errors.tsv (exit code, first stderr line).
# Usage: submit_check.sh KITE_BINARY VECTOR_DIR FILE.sub
set -eu
KITE="$1"
DIR="$2"
FILE="$3"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin" "$TMP/work/run1" "$TMP/work/run2" "$TMP/out" "$TMP/logs"
for f in bin/analyze.sh job.sh work/step.sh; do
  printf '#!/bin/sh\nexit 0\n' > "$TMP/$f"
  chmod 755 "$TMP/$f"
done
for f in in.txt work/params.txt work/run1/params.txt work/run2/params.txt; do
  echo "x" > "$TMP/$f"
done
cp "$DIR/$FILE" "$TMP/"
printf 'FILESYSTEM_DOMAIN = example.org\nUID_DOMAIN = example.org\n' > "$TMP/kite.conf"
rc=0
(cd "$TMP" && KITE_SUBMIT_USER='<user>' KITE_CONFIG="$TMP/kite.conf" \
  $KITE submit -dry-run "$FILE" > "$TMP/stdout" 2> "$TMP/stderr") || rc=$?

expected_error=$(awk -F'\t' -v f="$FILE" '$1 == f { print $2 "\t" $3 }' "$DIR/errors.tsv")
if [ -n "$expected_error" ]; then
  want_rc=$(printf '%s' "$expected_error" | cut -f1)
  want_msg=$(printf '%s' "$expected_error" | cut -f2-)
  got_msg=$(grep -v '^$' "$TMP/stderr" | head -n 1)
  fail=0
  [ "$rc" = "$want_rc" ] || { echo "FAIL $FILE: exit $rc, want $want_rc"; fail=1; }
  [ "$got_msg" = "$want_msg" ] || { echo "FAIL $FILE: stderr '$got_msg', want '$want_msg'"; fail=1; }
  [ ! -s "$TMP/stdout" ] || { echo "FAIL $FILE: something printed on stdout"; fail=1; }
  [ $fail = 0 ] && echo "ok $FILE: $got_msg"
  exit $fail
fi
if [ "$rc" != 0 ]; then
  echo "FAIL $FILE: exit $rc"
  cat "$TMP/stderr"
  exit 1
fi
# Map the temporary directory to /submit, then compare every expected row.
sed "s#$TMP#/submit#g" "$TMP/stdout" > "$TMP/ads"
awk -F'\t' -v f="$FILE" -v ads="$TMP/ads" '
  BEGIN {
    proc = 0
    while ((getline line < ads) > 0) {
      if (line == "") { proc++; continue }
      i = index(line, " = ")
      if (i == 0) { print "FAIL " f ": unreadable line: " line; bad = 1; continue }
      got[proc, substr(line, 1, i - 1)] = substr(line, i + 3)
    }
    procs = proc + 1
  }
  $1 == f {
    n++
    key = $2 SUBSEP $3
    if ($4 == "<absent>") {
      if (key in got) { print "FAIL " f " proc " $2 ": " $3 " = " got[key] ", want it absent"; bad = 1 }
    } else if (!(key in got)) {
      print "FAIL " f " proc " $2 ": " $3 " missing, want " $4; bad = 1
    } else if (got[key] != $4) {
      print "FAIL " f " proc " $2 ": " $3 " = " got[key] "\n     want " $4; bad = 1
    }
    if ($2 + 1 > want_procs) want_procs = $2 + 1
  }
  END {
    if (n == 0) { print "FAIL " f ": no expected rows"; exit 1 }
    if (procs != want_procs) { print "FAIL " f ": " procs " procs, want " want_procs; bad = 1 }
    if (bad) exit 1
    print "ok " f ": " n " attributes in " procs " procs"
  }' "$DIR/expected.tsv"

#!/bin/sh
# `kite submit -dry-run` of a 10,000-proc `queue ... from FILE` submit file, timed; PASS under
# half a second (the issue 12 target). Usage: submit_bench.sh KITE_BINARY
set -eu
KITE="$1"
PROCS=10000
LIMIT_MS=500
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf '#!/bin/sh\nexit 0\n' > "$TMP/job.sh"
chmod 755 "$TMP/job.sh"
awk -v n=$PROCS 'BEGIN { for (i = 0; i < n; i++) printf "%d, run%d, %d\n", i, i % 7, 256 + (i % 4) * 256 }' \
  > "$TMP/items.txt"
cat > "$TMP/bench.sub" <<'SUB'
executable     = job.sh
arguments      = "--index $(idx) --label $(label)"
request_memory = $(mem)
output         = out.$(Cluster).$(Process)
error          = err.$(Process)
environment    = "RUN=$(label) STEP=$(Step)"
+Index         = $(idx)
queue idx, label, mem from items.txt
SUB
cd "$TMP"
# Best of three runs (the machine is shared); each run must give every proc.
best=""
for run in 1 2 3; do
  start=$(date +%s%N)
  "$KITE" submit -dry-run bench.sub > ads.txt
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  procs=$(grep -c '^ProcId = ' ads.txt)
  [ "$procs" = "$PROCS" ] || { echo "submit bench: $procs procs, want $PROCS: FAIL"; exit 1; }
  [ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
done
bytes=$(wc -c < ads.txt)
if [ "$best" -lt "$LIMIT_MS" ]; then verdict=PASS; else verdict=FAIL; fi
echo "submit -dry-run, $PROCS procs from a queue-from file: ${best} ms (best of 3, limit ${LIMIT_MS} ms), $bytes bytes of ads: $verdict"
[ "$verdict" = PASS ]

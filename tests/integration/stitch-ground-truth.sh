#!/bin/sh
# Stitching against ground truth (issues 6 and 17): record deep stacks
# with the largest stack copy perf allows, unwind them whole (the truth),
# then cut the same samples to 2, 4 and 8 KiB (--truncate-stack) and
# unwind with and without stitching.  Two recursions: deep-stack (the
# depth sweeps up and down) and stitch-depth (a random depth in 20..140
# each round, 128-byte frames).  Of the cut samples that stitching
# completed, >= 99% must equal the truth, and no chain may end at a root
# other than the truth's; stitch-depth at 4 KiB must complete >= 80% of
# its cut samples.
. "$(dirname "$0")/../lib/test-lib.sh"

need_stacktrace
need_perf

for name in deep-stack stitch-depth; do
  prog="$TESTS_BUILDDIR/progs/$name"
  [ -x "$prog" ] || die "test program $prog not built"

  # 65528 bytes per sample: sample every 2 ms to keep the file small.
  perf record -q -N -e cpu-clock -c 2000000 --call-graph=dwarf,65528 \
    -o "$tmp/deep.data" -- "$prog" "${ST_PROG_MS:-1500}" >"$tmp/record.log" 2>&1 \
    || { cat "$tmp/record.log"; skip "perf cannot record 64 KiB stacks here"; }

  run_st truth -i "$tmp/deep.data" -o /dev/null --no-stitch \
    --chains "$tmp/truth.chains" || fail "ground-truth run failed"

  for cut in 2048 4096 8192; do
    run_st "cut$cut" -i "$tmp/deep.data" -o /dev/null --no-stitch \
      --truncate-stack "$cut" --chains "$tmp/cut$cut.chains" \
      || fail "--truncate-stack $cut --no-stitch failed"
    run_st "stitch$cut" -i "$tmp/deep.data" -o /dev/null \
      --truncate-stack "$cut" --chains "$tmp/stitch$cut.chains" \
      || fail "--truncate-stack $cut failed"

    # Line N of the three files is the same sample (same input order).
    paste "$tmp/truth.chains" "$tmp/cut$cut.chains" "$tmp/stitch$cut.chains" \
    | awk -F '\t' -v cut="$cut" -v name="$name" '
        function root(syms,  n, a) { n = split(syms, a, ";"); return a[n] }
        {
          n++
          truth = $5; cutc = $10; st = $15
          if (root(truth) == "_start") truth_root++
          if (root(cutc) != "_start") {
            n_cut++
            if (root(st) == "_start") {
              stitched++
              if (st == truth) same++
            }
          }
          if (st != cutc && root(st) != root(truth)) wrong_root++
        }
        END {
          if (n == 0) { print name " cut " cut ": no samples"; exit 1 }
          printf "%s cut %d: %d samples, %d cut; stitched %d (%.1f%%), " \
                 "identical to the truth %d (%.1f%%), wrong root %d\n", name,
                 cut, n, n_cut, stitched, n_cut ? 100 * stitched / n_cut : 100,
                 same, stitched ? 100 * same / stitched : 100, wrong_root
          if (truth_root < 0.99 * n) { print "FAIL: the ground truth itself is incomplete"; exit 1 }
          if (stitched > 0 && same < 0.99 * stitched) { print "FAIL: < 99% identical"; exit 1 }
          if (wrong_root > 0) { print "FAIL: chains reaching a wrong root"; exit 1 }
          if (name == "stitch-depth" && cut == 4096 && stitched < 0.8 * n_cut) {
            print "FAIL: < 80% of the cut samples stitched"; exit 1 }
          if (name == "deep-stack" && cut == 2048 && stitched == 0) {
            print "FAIL: nothing was stitched"; exit 1 }
        }' || fail "$name: stitching at $cut bytes"
  done
done
finish

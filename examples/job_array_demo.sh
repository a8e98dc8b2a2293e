#!/usr/bin/env bash
# Plays the batch scheduler for job_array_step: after each step the tasks it printed are
# "submitted", and before the next step a random part of the tasks out finish, in any order (each
# writes done/N.y from todo/N.x). Ends when the step says "done ELBO"; checks the ELBO against
# log Z of the example's Gaussian.   Usage: job_array_demo.sh JOB_ARRAY_STEP
set -euo pipefail
step="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
out=""
for round in $(seq 1 1000); do
  printed="$("$step" "$dir")"
  if [[ "$printed" == done* ]]; then
    echo "job array: $printed after $round steps"
    exec python3 -c "import math, sys; elbo = float(sys.argv[1]); log_z = 1.5 * math.log(2 * math.pi) + 0.5 * math.log(0.75); print('log Z = %.4f' % log_z); sys.exit(0 if abs(elbo - log_z) < 0.5 else 1)" "${printed#done }"
  fi
  out="$out $printed"
  # Some of the tasks out finish (seeded by the round, so the demo repeats itself).
  out="$(python3 - "$dir" "$round" $out <<'PY'
import math, random, sys
folder, round_, ids = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rng = random.Random(round_)
rng.shuffle(ids)
finishing = ids[:max(1, rng.randint(0, len(ids)))] if ids else []
for task in finishing:
    with open(f"{folder}/todo/{task}.x") as f:
        x = [float.fromhex(line) for line in f]
    q = (x[0] ** 2 - 2 * 0.5 * x[0] * x[1] + x[1] ** 2) / (1 - 0.25) + x[2] ** 2
    with open(f"{folder}/done/{task}.y", "w") as f:
        f.write(repr(-0.5 * q) + "\n")
print(" ".join(ids[len(finishing):]))
PY
)"
done
echo "job array: the run did not finish in 1000 steps"
exit 1

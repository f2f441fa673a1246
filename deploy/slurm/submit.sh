#!/bin/bash
# Submits a sharded bao-referee tournament to Slurm: the array job (tournament.sbatch, one
# task per shard) and the merge (merge.sbatch), which runs once every task has succeeded
# (--dependency=afterok). Prints the two job ids, array first, one per line.
#
#   BAO_SHARDS=8 BAO_OUT=/shared/results BAO_CONFIG=bots.toml deploy/slurm/submit.sh
#
# BAO_SHARDS is the number of shards (default 8); the other parameters are described at the
# top of tournament.sbatch and merge.sbatch and pass to the jobs through the environment.
# Extra arguments are given to both sbatch calls (e.g. --partition=batch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=${BAO_SHARDS:-8}
case $shards in
    '' | *[!0-9]* | 0) echo "submit.sh: BAO_SHARDS must be a positive number, not '$shards'" >&2; exit 2 ;;
esac

array=$(sbatch --parsable "$@" --array="1-$shards" "$here/tournament.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable "$@" --dependency="afterok:$array" --kill-on-invalid-dep=yes "$here/merge.sbatch")
merge=${merge%%;*}
echo "$array"
echo "$merge"

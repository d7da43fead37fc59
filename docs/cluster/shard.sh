#!/bin/sh
# One shard of a training generation: self-play, then labels, for shard $SHARD of $SHARDS.
# Run by each task of a Slurm array (othello-train.slurm) or a Kubernetes Indexed Job
# (othello-train-job.yaml); then, once every shard is done, on any one machine:
#   othello train merge $RUN/labelled-*.bin --out $RUN/labelled.bin
#   othello train fit --in $RUN/labelled.bin --out $RUN/weights.bin
# The merged file is the file one machine running `othello train selfplay` and
# `othello train label` with the same options writes, byte for byte.
set -eu
: "${SHARD:?the shard number, from 0}"
: "${SHARDS:?the number of shards}"
RUN=${RUN:-runs/full-10x10-most}
OTHELLO=${OTHELLO:-othello}
KIND=${KIND:---rules full --size 10x10 --win most}
GAMES=${GAMES:-3000}
SEED=${SEED:-1}
PLAY_DEPTH=${PLAY_DEPTH:-6}
EXACT=${EXACT:-16}
DEPTH=${DEPTH:-6}
WEIGHTS=${WEIGHTS:-classic}
mkdir -p "$RUN"
# shellcheck disable=SC2086 # KIND is several options
"$OTHELLO" train selfplay --out "$RUN/positions-$SHARD.bin" $KIND --games "$GAMES" \
    --seed "$SEED" --depth "$PLAY_DEPTH" --weights "$WEIGHTS" --shard "$SHARD/$SHARDS"
"$OTHELLO" train label --in "$RUN/positions-$SHARD.bin" --out "$RUN/labelled-$SHARD.bin" \
    --exact "$EXACT" --depth "$DEPTH" --weights "$WEIGHTS"

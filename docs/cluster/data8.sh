#!/bin/sh
# One shard of the 8 x 8 data at scale (docs/training.md, "Data at scale"): self-play at a
# fixed level, each position labelled by its game's result, the first plies searched.
# Run by each task of an array job (as shard.sh is), or one after another on one machine:
#   for i in $(seq 0 19); do SHARD=$i SHARDS=20 sh docs/cluster/data8.sh; done
# then, once every shard is done, on any one machine (with SHARDS=1 there is nothing to merge:
# labelled-0.bin is the whole file):
#   othello train merge $RUN/labelled-*.bin --out $RUN/labelled.bin
#   othello train dedup --in $RUN/labelled.bin --out $RUN/train.bin --exclude $TEST
# Each step resumes where it stopped when run again; a finished one says so and does nothing.
# With KEEP set to a folder (a checkout's data/selfplay-8x8, committed as shards finish), a
# finished shard is packed there as games (`train pack`, about a byte a position), and a
# shard found packed there is unpacked instead of played again: a machine that loses its
# disk loses only the shards not yet kept.
set -eu
: "${SHARD:?the shard number, from 0}"
: "${SHARDS:?the number of shards}"
RUN=${RUN:-runs/data8}
OTHELLO=${OTHELLO:-othello}
GAMES=${GAMES:-1400000}
SEED=${SEED:-301}
LEVEL=${LEVEL:-7}
OPENING=${OPENING:-2-40}
RESULTS=${RESULTS:-50}
DEPTH=${DEPTH:-10}
KEEP=${KEEP:-}
mkdir -p "$RUN"
if [ -n "$KEEP" ] && [ -f "$KEEP/labelled-$SHARD.pack" ]; then
    [ -f "$RUN/labelled-$SHARD.bin" ] ||
        "$OTHELLO" train unpack --in "$KEEP/labelled-$SHARD.pack" --out "$RUN/labelled-$SHARD.bin"
    exit 0
fi
"$OTHELLO" train selfplay --out "$RUN/play-$SHARD.bin" --games "$GAMES" --seed "$SEED" \
    --level "$LEVEL" --opening "$OPENING" --result-labels "$RESULTS" --shard "$SHARD/$SHARDS"
"$OTHELLO" train label --in "$RUN/play-$SHARD.bin" --out "$RUN/labelled-$SHARD.bin" \
    --exact 0 --depth "$DEPTH" --selectivity 73
if [ -n "$KEEP" ]; then
    mkdir -p "$KEEP"
    "$OTHELLO" train pack --in "$RUN/labelled-$SHARD.bin" --out "$KEEP/labelled-$SHARD.pack"
fi

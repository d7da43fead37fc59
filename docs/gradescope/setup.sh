#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image. The autograder
# zip holds this file, run_autograder, points.toml, a cases/ folder and the othello source
# (othello/, as in this repository): it is built here, for the image's own system, into
# /opt/othello: outside /usr, so that a submission sees neither the grader's program nor
# its path inside the sandbox (which shows only /usr, /bin, /lib and /etc).
set -euo pipefail
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y bubblewrap python3 build-essential curl
# For Java submissions: DEBIAN_FRONTEND=noninteractive apt-get install -y default-jdk-headless
curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
"$HOME/.cargo/bin/cargo" install --locked --path /autograder/source/othello --root /opt/othello

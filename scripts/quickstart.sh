#!/bin/bash
# Installs missing build dependencies, configures, builds, and runs
# examples/pingpong on 4 local ranks with tools/hcmpirun (ranks 0 and 1
# ping-pong; 2 and 3 join the final barrier).
#   BUILD_DIR (default build/), JOBS (2)
set -u
. "$(dirname "$0")/common.sh"
hc_install_deps || exit 1
hc_build || exit 1
echo "== $BUILD_DIR/tools/hcmpirun -n 4 $BUILD_DIR/examples/pingpong 200 1048576"
"$BUILD_DIR/tools/hcmpirun" -n 4 "$BUILD_DIR/examples/pingpong" 200 1048576

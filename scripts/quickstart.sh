#!/bin/bash
# Installs missing build dependencies, configures, builds, and runs
# examples/pingpong on 2 local ranks with tools/hcmpirun.  Two ranks, not
# more: on a 2-core machine idle extra ranks waiting in the final barrier
# would take the cores from the two that ping-pong, and the first figures a
# user sees would be the machine's, not hcmpi's.
#   BUILD_DIR (default build/), JOBS (2)
set -u
. "$(dirname "$0")/common.sh"
hc_install_deps || exit 1
hc_build || exit 1
echo "== $BUILD_DIR/tools/hcmpirun -n 2 $BUILD_DIR/examples/pingpong 200 1048576"
"$BUILD_DIR/tools/hcmpirun" -n 2 "$BUILD_DIR/examples/pingpong" 200 1048576

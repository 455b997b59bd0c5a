#!/usr/bin/env bash
# Builds the concurrency tests with ThreadSanitizer into build-tsan/ (or $BERTH_TSAN_BUILD_DIR)
# and runs them: the shim's queue, cache, watch, informer, leader, events and manager suites, the
# kubesim-backed shim integration suite and the controllers suite (scheduler cache, reservation
# owner sync). Any data race fails the run. scripts/test.sh calls it; it also runs alone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BERTH_TSAN_BUILD_DIR:-$root/build-tsan}"
targets="shim_queue_tests shim_cache_tests shim_watch_tests shim_informer_tests shim_leader_tests
  shim_events_tests shim_manager_tests shim_integration_tests controllers_tests"
BERTH_BUILD_DIR="$build" BERTH_TARGETS="$(echo $targets)" "$root/scripts/build.sh" -DBERTH_TSAN=ON "$@"
# halt_on_error: the first race fails its test with the report, instead of scrolling past.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/scripts/tsan.supp ${TSAN_OPTIONS:-}"
cd "$build"
# Only the unit-labelled tests of the binaries built above: the rest of the tree is not built here
# (its tests register as *_NOT_BUILT, which carry no label).
# Tests that decode protobuf with libprotobuf are left out: Debian's libprotobuf is not built with
# ThreadSanitizer, and protobuf's headers give MapFieldBase two more members under it
# (map_field.h, __SANITIZE_THREAD__), so generated code and the library disagree on its layout and
# a message with a map crashes when freed. They run in the normal and fuzz trees.
ctest -L unit -E 'Protobuf' --output-on-failure -j"${BERTH_TEST_JOBS:-2}" --timeout 900

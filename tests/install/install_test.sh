#!/usr/bin/env bash
# The installed package, as an architect's platform would use it (doc/library.md): installs the
# already-built upswitch into a temporary prefix, then builds tb/tlm_example against it twice, as
# an out-of-tree CMake project (find_package(upswitch)) and with a bare compiler line from
# pkg-config, and runs both. Downloads nothing.
#   install_test.sh <build dir> <source dir> <C++ compiler>
# The compiler is the one the build used: an LTO build's archives hold GCC's intermediate code,
# which only the same GCC can link.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cxx=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/upswitch-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

step() { printf '== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

step "install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in include/upswitch/core/link.h include/upswitch/traffic/rng.h include/upswitch/sc/txn_system.h \
         include/upswitch/version.h lib/libupswitch_model.a lib/libupswitch_sc.a lib/libupswitch_chakra.a lib/libupswitch_app.a \
         bin/upswitch lib/cmake/upswitch/upswitchConfig.cmake lib/cmake/upswitch/upswitchConfigVersion.cmake \
         lib/cmake/upswitch/upswitchTargets.cmake lib/pkgconfig/upswitch.pc; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
# The project's own warning flags must not reach consumers.
if grep -nE -- '-W(error|all|extra)' "$prefix"/lib/cmake/upswitch/*.cmake "$prefix/lib/pkgconfig/upswitch.pc"; then
  fail "warning flags in the installed interface"
fi
"$prefix/bin/upswitch" --version

expect() {  # <log> : the example's verdict line, and no mismatch
  grep -q '^PASSED (0 mismatches)' "$1" || { cat "$1"; fail "no PASSED line in $1"; }
  if grep -q MISMATCH "$1"; then cat "$1"; fail "mismatch in $1"; fi
}

step "find_package(upswitch): configure, build and run tb/tlm_example out of tree"
cmake -S "$src/tb/tlm_example" -B "$tmp/cmake-build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.log" \
  || { cat "$tmp/configure.log"; fail "configure"; }
cmake --build "$tmp/cmake-build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "build"; }
"$tmp/cmake-build/tlm_example" >"$tmp/run-cmake.log" 2>&1 || { cat "$tmp/run-cmake.log"; fail "run (CMake build)"; }
expect "$tmp/run-cmake.log"
grep '^PASSED' "$tmp/run-cmake.log"

step "pkg-config upswitch: build and run tb/tlm_example with one compiler line"
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" pkg-config --cflags --libs upswitch)
echo "$cxx -O2 tlm_example.cpp $flags"
"$cxx" -O2 "$src/tb/tlm_example/tlm_example.cpp" -o "$tmp/tlm_example_pc" $flags
"$tmp/tlm_example_pc" >"$tmp/run-pc.log" 2>&1 || { cat "$tmp/run-pc.log"; fail "run (pkg-config build)"; }
expect "$tmp/run-pc.log"
grep '^PASSED' "$tmp/run-pc.log"
step "ok"

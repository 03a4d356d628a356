# Sourced by the build scripts (build.sh, check_nolto.sh, fuzz.sh). When ccache is installed
# (scripts/setup.sh installs it), compiles go through it: CI builds a fresh clone four ways every
# time, and most sources have not changed since the last build on the machine, so most compiles
# become cache hits (link-time optimisation and linking still run). CCACHE_BASEDIR makes the
# clone's location irrelevant to the cache, CCACHE_NOHASHDIR lets the -g (sanitizer) builds hit
# as well. UPSWITCH_CCACHE=0 compiles without it. Sets UPSWITCH_CACHE_ARGS for cmake's configure.
UPSWITCH_CACHE_ARGS=(-DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=)
if [ "${UPSWITCH_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
  UPSWITCH_CACHE_ARGS=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

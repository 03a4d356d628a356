#!/usr/bin/env bash
# Installs the Debian 12 packages upswitch needs, if any are missing. Idempotent; uses sudo when
# not root; nothing is downloaded outside apt.
#   scripts/setup.sh       everything: the build, the tests, co-simulation and the sweep tools
#                          (test.sh, bench.sh, CI)
#   scripts/setup.sh run   only what the main job needs: the compiler, the libraries the upswitch
#                          program links and matplotlib for its picture (run.sh; README "First run")
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ccache
  libsystemc-dev libfmt-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libpng-dev
  libprotobuf-dev protobuf-compiler
  python3 python3-matplotlib
)
case "${1:-all}" in
  run) ;;
  all) PACKAGES+=(verilator libgtest-dev googletest python3-yaml python3-pytest
                  slurmctld slurmd slurm-client munge) ;;
  *) echo "setup.sh: unknown set '$1' (allowed: run, all)" >&2; exit 2 ;;
esac
PACKAGES+=(${UPSWITCH_EXTRA_PACKAGES:-})

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

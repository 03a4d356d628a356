#!/usr/bin/env bash
# Installs the Debian 12 packages upswitch needs, if any are missing. Idempotent; uses sudo when
# not root. Called by run.sh, test.sh and bench.sh; nothing is downloaded outside apt.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ccache
  libsystemc-dev verilator
  libgtest-dev googletest libfmt-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libpng-dev
  libprotobuf-dev protobuf-compiler
  python3 python3-yaml python3-matplotlib python3-pytest
  slurmctld slurmd slurm-client munge
)
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

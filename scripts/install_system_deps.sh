#!/usr/bin/env bash
# Install the Debian packages the service/storage/browser tests need, and the build tools llama-cpp-python
# (the [llm-local] extra: live tests against a real local model) compiles llama.cpp with. Idempotent and non-interactive:
# packages already present are not re-fetched, and `apt-get update` runs at most once per invocation
# (and only when something is missing).
set -euo pipefail

PACKAGES=(postgresql chromium chromium-driver cmake build-essential)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install_system_deps: all present (${PACKAGES[*]})"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
# Another apt client may hold the lock briefly (shared machines): wait for it instead of failing.
APT_OPTS=(-o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
echo "install_system_deps: installing ${missing[*]}"
$SUDO apt-get "${APT_OPTS[@]}" update -qq
$SUDO apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${missing[@]}"
echo "install_system_deps: done"

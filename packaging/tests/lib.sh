# Shared by the packaging tests (sourced, from the repository's root): where they build and keep things.
#   $root     the repository
#   $target   the cargo target directory ($CARGO_TARGET_DIR, else target/), absolute and exported, so
#             every build here (maturin's included) reuses the release build that is already there
#   $dist     $target/dist: wheels, virtual environments and throw-away repositories of these tests
root="$PWD"
target="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"
export CARGO_TARGET_DIR="$target"
dist="$target/dist"
mkdir -p "$dist"

# The wheel that packaging/tests/wheel.sh built.
built_wheel() {
  local wheels=("$dist"/wheels/crdls-*.whl)
  [ -f "${wheels[0]}" ] || { echo "no wheel in $dist/wheels: run packaging/tests/wheel.sh first" >&2; return 1; }
  echo "${wheels[0]}"
}

# A virtual environment with pre-commit (and with it PyYAML, which run_action.py reads action.yml with).
PRE_COMMIT_VERSION=4.7.0
# The maturin of packaging/tests/wheel.sh's manylinux build (`pip wheel .` takes the newest 1.x).
MATURIN_VERSION=1.16.0
tools_venv() {
  local venv="$dist/tools-venv"
  if ! "$venv/bin/pre-commit" --version 2>/dev/null | grep -qx "pre-commit $PRE_COMMIT_VERSION"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "pre-commit==$PRE_COMMIT_VERSION"
  fi
  echo "$venv"
}

# Fails the test with a message.
fail() {
  echo "FAILED: $*" >&2
  exit 1
}

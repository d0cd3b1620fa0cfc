# Shared by the editor end-to-end scripts (sourced, not run).

# Installs Debian packages when root on a Debian-like machine (CI runs as root on a fresh one);
# otherwise says what is missing and fails.
apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "missing: $* (install them with apt-get, or run as root)" >&2
    return 1
  fi
}

#!/usr/bin/env bash
# Sourced by the scripts that debootstrap local images (test/integration/docker-env.sh,
# test/deploy/container.sh).

# Debian mirror from the apt sources (deb822 `URIs:` or one-line `deb <uri> <suite>`), so the
# build uses whatever mirror/proxy this machine is configured for.
dbadapter_debian_mirror() {
  local f uri=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri="$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /debian\/?$/) { print $i; exit } }' "$f")"
    [ -n "$uri" ] && break
  done
  if [ -z "$uri" ]; then
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] || continue
      uri="$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/ && $i ~ /debian\/?$/) { print $i; exit } }' "$f")"
      [ -n "$uri" ] && break
    done
  fi
  printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}


#!/usr/bin/env bash
# Builds the test-only Helm renderer (main.go) against Debian's Go packages, offline:
#   bash test/deploy/helm-render/build.sh OUTPUT_BINARY
# Needs golang-go, golang-github-masterminds-sprig-dev and golang-gopkg-yaml.v3-dev (.ci/run
# installs them). Debian's Go tree has no go.mod for some of sprig's dependencies, so this builds
# in GOPATH mode, with links for the two /v3 import paths.
set -euo pipefail
out="$(realpath -m "${1:?usage: build.sh OUTPUT_BINARY}")"
src=/usr/share/gocode/src
gp="$(mktemp -d /tmp/helm-render-gopath.XXXXXX)"
trap 'rm -rf "$gp"' EXIT
mkdir -p "$gp/src/github.com/Masterminds/sprig" "$gp/src/github.com/Masterminds/semver" "$gp/src/helmrender"
ln -s "$src/github.com/Masterminds/sprig" "$gp/src/github.com/Masterminds/sprig/v3"
ln -s "$src/github.com/Masterminds/semver" "$gp/src/github.com/Masterminds/semver/v3"
cp "$(dirname "$0")/main.go" "$gp/src/helmrender/"
cd "$gp/src/helmrender"
GO111MODULE=off GOPATH="$gp:/usr/share/gocode" GOFLAGS= GOCACHE="${GOCACHE:-/tmp/helm-render-gocache}" go build -o "$out" .

#!/bin/sh
# Install what building and testing kubectl-inspect-cgpu needs on Debian 12,
# skipping packages that are already there.
set -eu

packages="gcc pkg-config meson ninja-build git python3 python3-yaml openssl curl tmux mandoc
libcurl4-openssl-dev libyaml-dev libjansson-dev libyajl-dev libisal-dev zlib1g-dev libncurses-dev libcriterion-dev
clang libclang-rt-14-dev etcd-server xz-utils prometheus python3-h2"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
# The plugin is shown and tested through the real kubectl; Debian packages it
# as kubernetes-client.
command -v kubectl >/dev/null 2>&1 || missing="$missing kubernetes-client"

if [ -n "$missing" ]; then
	echo "installing:$missing"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

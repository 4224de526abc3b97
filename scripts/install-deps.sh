#!/usr/bin/env bash
# Installs what Scalewright needs to build and test on Debian 12, from Debian's own packages.
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config   # toolchain
  libyaml-cpp-dev                    # manifests (YAML): the node tree the kind decoders read
  libyaml-dev                        # manifests (YAML): libyaml's event parser, 9 times as fast as yaml-cpp's
  nlohmann-json3-dev                 # JSON output and fixtures
  libfmt-dev libspdlog-dev           # formatting and structured logs
  libcli11-dev                       # command line
  libgtest-dev libgmock-dev          # tests
  libbenchmark-dev                   # benchmarks
  libglpk-dev                        # benchmarks: GLPK solves the configuration LP's bound (bench/configuration_lp.cpp)
  libcsv-dev                         # data files (CSV)
  tzdata                             # KEDA cron triggers' time zones: the system's tz database, as KEDA reads it
  libcpp-httplib-dev                 # HTTP client for metric sources (Prometheus API); test servers
  libssl-dev                         # AWS requests signed (SigV4: OpenSSL's HMAC-SHA256), TLS
  libpugixml-dev                     # AWS's XML answers (EC2, Auto Scaling, STS)
  prometheus                         # a real Prometheus server for the metric-source tests
  etcd-server openssl curl xz-utils  # a real kube-apiserver for the Kubernetes client tests (../shared/k8s/control-plane)
  python3-yaml                       # tests/deploy: compares the kustomize base, the CRDs and the Helm chart
  libjs-chart.js                     # the HTML report's charts (Chart.js), embedded at build time
  chromium-headless-shell            # tests: renders the HTML report as a browser does
)
# tests/deploy runs kubectl (kustomize, apply, auth can-i). Debian's kubernetes-client (kubectl 1.20) only where no
# kubectl exists: it would conflict with one installed otherwise (a newer kubectl from elsewhere works as well).
command -v kubectl >/dev/null || packages+=(kubernetes-client)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# deploy/ checked with kubectl and a real kube-apiserver.
#
#   deploy_test.sh offline REPO     `kubectl kustomize deploy/kustomize` builds; the base, the CRDs, the RBAC rules
#                                   and the Helm chart agree, deploy/aws's IAM policy grants the AWS provider's
#                                   calls only (check_manifests.py; the chart is rendered, also for cloudProvider
#                                   aws, when helm, or go with Debian's sprig, is at hand)
#   deploy_test.sh apiserver REPO   the base applied to kube-apiserver v1.26.1 (REPO/../shared/k8s/control-plane,
#                                   on 127.0.0.1): CRDs established, NodePools (the example unchanged, every field,
#                                   defaults), EC2NodeClasses (every field, defaults), NodeClaim, NodePool and
#                                   EC2NodeClass status subresources, invalid NodePools and EC2NodeClasses rejected
#                                   naming the field, and what the ServiceAccount may and may not do
#
# KUBECTL picks the kubectl (default: the one on PATH; Debian 12's is 1.20). Exit 0: passed; 1: failed (each failure
# on a FAIL line); 77: skipped, only in apiserver mode when REPO/../shared/k8s is absent.
set -uo pipefail

mode=${1:-}
if [ -z "$mode" ] || [ -z "${2:-}" ]; then echo "usage: deploy_test.sh offline|apiserver REPO" >&2; exit 2; fi
repo=$(cd "$2" && pwd) || exit 1
here=$(cd "$(dirname "$0")" && pwd)
KUBECTL=${KUBECTL:-kubectl}
chart=$repo/deploy/helm/scalewright
failures=0

pass() { echo "ok    $*"; }
fail() { echo "FAIL  $*"; failures=$((failures + 1)); }
indent() { sed 's/^/      /'; }

if [ "$mode" = apiserver ] && [ ! -d "$repo/../shared/k8s" ]; then
  echo "SKIP  $repo/../shared/k8s is absent: no kube-apiserver to test against"
  exit 77
fi
if ! command -v "$KUBECTL" >/dev/null; then
  echo "FAIL  no $KUBECTL (Debian: apt-get install kubernetes-client; scripts/install-deps.sh)"; exit 1
fi
if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "FAIL  python3 cannot import yaml (Debian: python3-yaml; scripts/install-deps.sh)"; exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/scalewright-deploy-test.XXXXXX")
cp_dir=
cleanup() {
  if [ -n "$cp_dir" ]; then "$repo/../shared/k8s/control-plane" down "$cp_dir" >/dev/null 2>&1 || true; fi
  if [ "$failures" -eq 0 ]; then rm -rf "$work"; else echo "kept for a look: $work"; fi
}
trap cleanup EXIT

echo "kubectl: $("$KUBECTL" version --client 2>/dev/null | head -1)"
if "$KUBECTL" kustomize "$repo/deploy/kustomize" >"$work/base.yaml" 2>"$work/kustomize.err"; then
  pass "kubectl kustomize deploy/kustomize builds ($(grep -c '^kind:' "$work/base.yaml") objects)"
else
  fail "kubectl kustomize deploy/kustomize:"; indent <"$work/kustomize.err"
  exit 1
fi

# ---------------------------------------------------------------------------------------------------------------
offline() {
  # Render the chart as Helm would, when something can: helm itself, or Go's text/template with sprig.
  local rendered=() how=
  printf 'serviceMonitor: {enabled: true}\n' >"$work/servicemonitor-values.yaml"
  # cloudProvider aws with every aws.* setting (check_manifests.py's AWS_VALUES), and without the required clusterName.
  PYTHONPATH=$here python3 -c 'import json, check_manifests; print(json.dumps(check_manifests.AWS_VALUES))' \
    >"$work/aws-values.yaml"
  printf 'cloudProvider: aws\naws: {clusterEndpoint: https://example.com}\n' >"$work/aws-no-name-values.yaml"
  # cloudProvider aws with aws.clusterName alone: the rest comes from EKS (eks:DescribeCluster) at start.
  printf 'cloudProvider: aws\naws: {clusterName: my-cluster}\n' >"$work/aws-name-only-values.yaml"
  if command -v helm >/dev/null; then
    how="helm template"
    if helm template scalewright "$chart" --namespace scalewright >"$work/chart.yaml" 2>"$work/render.err" &&
       helm template scalewright "$chart" --namespace scalewright -f "$work/servicemonitor-values.yaml" \
         >"$work/chart-sm.yaml" 2>>"$work/render.err" &&
       helm template scalewright "$chart" --namespace scalewright -f "$work/aws-values.yaml" \
         >"$work/chart-aws.yaml" 2>>"$work/render.err"; then
      rendered=("$work/chart.yaml" "$work/chart-sm.yaml" "$work/chart-aws.yaml")
      helm template scalewright "$chart" --namespace scalewright -f "$work/aws-no-name-values.yaml" \
        >/dev/null 2>"$work/render-no-name.err"
      helm template scalewright "$chart" --namespace scalewright -f "$work/aws-name-only-values.yaml" \
        >"$work/chart-aws-name-only.yaml" 2>"$work/render-name-only.err"
    else
      fail "helm template:"; indent <"$work/render.err"
    fi
  elif command -v go >/dev/null && [ -d "${GOPATH:-/usr/share/gocode}/src/github.com/Masterminds/sprig" ] &&
       [ -d "${GOPATH:-/usr/share/gocode}/src/github.com/ghodss/yaml" ]; then
    how="render_chart.go (Go text/template + sprig)"
    if GO111MODULE=off GOPATH=${GOPATH:-/usr/share/gocode} GOCACHE=$work/gocache go build -o "$work/render_chart" \
         "$here/render_chart.go" 2>"$work/render.err" &&
       "$work/render_chart" "$chart" scalewright scalewright >"$work/chart.yaml" 2>>"$work/render.err" &&
       "$work/render_chart" "$chart" scalewright scalewright "$work/servicemonitor-values.yaml" \
         >"$work/chart-sm.yaml" 2>>"$work/render.err" &&
       "$work/render_chart" "$chart" scalewright scalewright "$work/aws-values.yaml" \
         >"$work/chart-aws.yaml" 2>>"$work/render.err"; then
      rendered=("$work/chart.yaml" "$work/chart-sm.yaml" "$work/chart-aws.yaml")
      "$work/render_chart" "$chart" scalewright scalewright "$work/aws-no-name-values.yaml" \
        >/dev/null 2>"$work/render-no-name.err"
      "$work/render_chart" "$chart" scalewright scalewright "$work/aws-name-only-values.yaml" \
        >"$work/chart-aws-name-only.yaml" 2>"$work/render-name-only.err"
    else
      fail "rendering the chart:"; indent <"$work/render.err"
    fi
  fi
  if [ ${#rendered[@]} -gt 0 ]; then
    pass "chart rendered by $how"
    if grep -qF "aws.clusterName is required with cloudProvider aws" "$work/render-no-name.err"; then
      pass "cloudProvider aws without aws.clusterName does not render: $(head -1 "$work/render-no-name.err")"
    else
      fail "cloudProvider aws without aws.clusterName: want 'aws.clusterName is required', got:"
      indent <"$work/render-no-name.err"
    fi
    if grep -qF -- '--cluster-name=my-cluster' "$work/chart-aws-name-only.yaml" &&
       ! grep -qF -- '--cluster-endpoint' "$work/chart-aws-name-only.yaml"; then
      pass "cloudProvider aws with aws.clusterName alone renders, without --cluster-endpoint (EKS gives it)"
    else
      fail "cloudProvider aws with aws.clusterName alone: want --cluster-name=my-cluster and no --cluster-endpoint:"
      indent <"$work/render-name-only.err"; grep -F -- '--cluster' "$work/chart-aws-name-only.yaml" | indent
    fi
  else
    echo "note  chart not rendered (no helm; no go with golang-github-masterminds-sprig-dev and" \
         "golang-github-ghodss-yaml-dev): checked from its sources"
  fi
  python3 "$here/check_manifests.py" "$repo" "$work/base.yaml" "${rendered[@]}" || failures=$((failures + 1))
}

# ---------------------------------------------------------------------------------------------------------------
k() { "$KUBECTL" --kubeconfig "$cp_dir/kubeconfig" "$@"; }

# jsonpath OBJECT PATH WANT: the field reads back as WANT
field_is() {
  local got
  got=$(k get "$1" -o "jsonpath={$2}" 2>"$work/get.err")
  if [ "$got" = "$3" ]; then pass "$1 $2 = $3"; else fail "$1 $2: want '$3', got '$got'"; indent <"$work/get.err"; fi
}

# rejected YAML FIELD MESSAGE: applying the YAML (a NodePool or an EC2NodeClass) fails, naming FIELD, saying MESSAGE.
# --validate=false leaves the judgement to the API server, i.e. to the CRD's schema (kubectl 1.20 would otherwise
# check against the published OpenAPI first, in its own words). Never call a check at the end of a pipeline: it
# would count its failure in a subshell.
rejected() {
  local yaml=$1 want_field=$2 want_message=$3 name kind
  name=$(sed -n 's/^metadata: {name: \(.*\)}$/\1/p' <<<"$yaml")
  kind=$(sed -n 's/^kind: \(.*\)$/\1/p' <<<"$yaml")
  if k apply --validate=false -f - <<<"$yaml" >"$work/apply.out" 2>"$work/apply.err"; then
    fail "$kind $name was accepted; want a rejection naming $want_field"
    k delete "$(tr '[:upper:]' '[:lower:]' <<<"$kind")" "$name" >/dev/null 2>&1
    return
  fi
  if grep -qF -- "$want_field" "$work/apply.err" && grep -qF -- "$want_message" "$work/apply.err"; then
    pass "$kind $name rejected: $(grep -F -- "$want_field" "$work/apply.err" | grep -F -- "$want_message" |
                                   head -1 | sed 's/^[* ]*//')"
  else
    fail "$kind $name rejected, but not naming '$want_field' with '$want_message':"; indent <"$work/apply.err"
  fi
}

# nodepool NAME EXTRA-SPEC-YAML: a NodePool that is valid but for what EXTRA (at spec's indentation) adds
nodepool() {
  printf 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: %s}\nspec:\n%s\n' "$1" "$2"
}
template='  template:
    spec:
      nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}'

# ec2nodeclass NAME EXTRA-SPEC-YAML: an EC2NodeClass with EXTRA (at spec's indentation) as its spec
ec2nodeclass() {
  printf 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: %s}\nspec:\n%s\n' "$1" "$2"
}
discovery='  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]'

sa=system:serviceaccount:scalewright:scalewright
# can WANT ARGS...: `kubectl auth can-i --as=$sa ARGS` answers WANT (yes/no)
can() {
  local want=$1 got; shift
  got=$(k auth can-i --as="$sa" "$@" 2>"$work/can-i.err")
  if [ "$got" = "$want" ]; then pass "can-i $* -> $want"; else fail "can-i $*: want $want, got '$got'"; indent <"$work/can-i.err"; fi
}

# review WANT VERB GROUP RESOURCE SUBRESOURCE NAMESPACE: a SubjectAccessReview for $sa answers WANT. For kinds whose
# CRD is not installed (KEDA's), which `kubectl auth can-i` cannot map to their group.
review() {
  local want=$1 verb=$2 group=$3 resource=$4 subresource=$5 namespace=$6 allowed got
  allowed=$(printf '{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": "%s",
    "groups": ["system:serviceaccounts", "system:serviceaccounts:scalewright", "system:authenticated"],
    "resourceAttributes": {"verb": "%s", "group": "%s", "resource": "%s", "subresource": "%s", "namespace": "%s"}}}' \
    "$sa" "$verb" "$group" "$resource" "$subresource" "$namespace" | k create -f - -o 'jsonpath={.status.allowed}' 2>"$work/review.err")
  case "$allowed" in true) got=yes ;; false) got=no ;; *) got="?" ;; esac
  local what="$verb $resource${subresource:+/$subresource}.$group${namespace:+ in $namespace}"
  if [ "$got" = "$want" ]; then
    pass "SubjectAccessReview $what -> $want"
  else
    fail "SubjectAccessReview $what: want $want, got '$allowed'"; indent <"$work/review.err"
  fi
}

apiserver() {
  local control_plane=$repo/../shared/k8s/control-plane
  cp_dir=$work/cp
  if ! "$control_plane" up "$cp_dir" --apiserver-only >"$work/control-plane.log" 2>&1; then
    fail "control-plane up:"; indent <"$work/control-plane.log"; indent < <(tail -20 "$cp_dir"/logs/*.log 2>/dev/null)
    return
  fi
  local version
  version=$(k version -o json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["serverVersion"]["gitVersion"])')
  pass "kube-apiserver $version on $(grep -o 'https://[^"]*' "$cp_dir/kubeconfig")"

  # The base, client-side, then again server-side: both must work, the second without conflicts.
  if k apply -f "$work/base.yaml" >"$work/apply.out" 2>"$work/apply.err"; then
    pass "kubectl apply -f (client-side) of the kustomize output: $(wc -l <"$work/apply.out") objects"
  else
    fail "kubectl apply -f of the kustomize output:"; indent <"$work/apply.err"; return
  fi
  if grep -q PodSecurity "$work/apply.err"; then
    fail "the Deployment breaks the namespace's restricted Pod Security Standard:"; indent <"$work/apply.err"
  else
    pass "the Deployment meets the restricted Pod Security Standard (no PodSecurity warning)"
  fi
  if k wait --for condition=established --timeout=60s crd/nodepools.karpenter.sh crd/nodeclaims.karpenter.sh \
       crd/ec2nodeclasses.karpenter.k8s.aws >"$work/wait.out" 2>&1; then
    pass "CRDs nodepools.karpenter.sh, nodeclaims.karpenter.sh and ec2nodeclasses.karpenter.k8s.aws are Established"
  else
    fail "CRDs not Established:"; indent <"$work/wait.out"; return
  fi
  if k apply --server-side --field-manager=scalewright-deploy-test -f "$work/base.yaml" >"$work/apply.out" 2>"$work/apply.err"; then
    pass "kubectl apply --server-side of the same output: no conflicts"
  else
    fail "kubectl apply --server-side:"; indent <"$work/apply.err"
  fi

  # The example NodePool, unchanged, and a Deployment of pause pods.
  if k apply -f "$repo/examples/cluster/nodepool.yaml" -f "$repo/examples/cluster/inflate.yaml" >"$work/apply.out" 2>"$work/apply.err"; then
    pass "examples/cluster/nodepool.yaml and inflate.yaml apply unchanged"
  else
    fail "examples/cluster/*.yaml:"; indent <"$work/apply.err"
  fi
  field_is nodepool/default .spec.template.spec.nodeClassRef.kind KWOKNodeClass
  field_is nodepool/default '.spec.disruption.budgets[1].schedule' '0 9 * * mon-fri'
  field_is deployment/inflate .spec.replicas 0

  # Defaults: a NodePool that sets only what it must.
  if ! k apply -f - <<<"$(nodepool minimal "$template
      requirements: []")" >"$work/apply.out" 2>"$work/apply.err"; then
    fail "minimal NodePool:"; indent <"$work/apply.err"
  fi
  field_is nodepool/minimal .spec.disruption.consolidationPolicy WhenEmptyOrUnderutilized
  field_is nodepool/minimal .spec.disruption.consolidateAfter 0s
  field_is nodepool/minimal '.spec.disruption.budgets[*].nodes' 10%
  field_is nodepool/minimal .spec.template.spec.expireAfter 720h

  # Every v1 field: applies, and reads back as written.
  if k apply -f "$here/nodepool-all-fields.yaml" >"$work/apply.out" 2>"$work/apply.err"; then
    k get nodepool every-field -o json >"$work/every-field.json"
    if python3 "$here/check_manifests.py" --contains "$here/nodepool-all-fields.yaml" "$work/every-field.json" >"$work/contains.out"; then
      pass "NodePool with every v1 field set applies and reads back as written"
    else
      fail "NodePool with every v1 field set reads back differently:"; indent <"$work/contains.out"
    fi
  else
    fail "NodePool with every v1 field set:"; indent <"$work/apply.err"
  fi

  # NodePool status through its subresource, and the printer columns that show it.
  local now status
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  status='{"status": {"resources": {"cpu": "4", "memory": "16Gi", "nodes": "2"},
    "conditions": [{"type": "Ready", "status": "True", "reason": "Ready", "message": "", "lastTransitionTime": "'$now'"}]}}'
  patch_status nodepool default "$status"
  field_is nodepool/default .status.resources.nodes 2
  if k get nodepool default >"$work/get.out" 2>&1 && head -1 "$work/get.out" | grep -q 'NODECLASS *NODES *READY' &&
     grep -Eq '^default +default +2 +True' "$work/get.out"; then
    pass "kubectl get nodepool shows NodeClass, Nodes and Ready: $(sed -n 2p "$work/get.out")"
  else
    fail "kubectl get nodepool columns:"; indent <"$work/get.out"
  fi

  # A NodeClaim as the controller creates one; its status written through the status subresource.
  if k apply -f "$here/nodeclaim.yaml" >"$work/apply.out" 2>"$work/apply.err"; then
    pass "NodeClaim with every spec field applies"
  else
    fail "NodeClaim:"; indent <"$work/apply.err"
  fi
  status='{"status": {"nodeName": "kwok-default-x7k2p", "providerID": "kwok://default-x7k2p", "imageID": "kwok",
    "capacity": {"cpu": "2", "memory": "8Gi", "pods": "29"}, "allocatable": {"cpu": "1930m", "memory": "7Gi", "pods": "29"},
    "conditions": [{"type": "Launched", "status": "True", "reason": "Launched", "message": "", "lastTransitionTime": "'$now'"},
                   {"type": "Ready", "status": "True", "reason": "Ready", "message": "", "lastTransitionTime": "'$now'"}]}}'
  patch_status nodeclaim default-x7k2p "$status"
  field_is nodeclaim/default-x7k2p .status.nodeName kwok-default-x7k2p
  field_is nodeclaim/default-x7k2p .status.providerID kwok://default-x7k2p
  field_is nodeclaim/default-x7k2p .status.capacity.cpu 2
  field_is nodeclaim/default-x7k2p .status.allocatable.memory 7Gi
  field_is nodeclaim/default-x7k2p '.status.conditions[?(@.type=="Launched")].status' True
  # Status written through the object itself is dropped: only the subresource writes it.
  k patch nodeclaim default-x7k2p --type=merge -p '{"status":{"nodeName":"elsewhere"}}' >/dev/null 2>&1
  field_is nodeclaim/default-x7k2p .status.nodeName kwok-default-x7k2p
  if k patch nodeclaim default-x7k2p --type=merge -p '{"spec":{"expireAfter":"1h"}}' >/dev/null 2>"$work/patch.err"; then
    fail "a NodeClaim's spec changed after creation; want 'spec is immutable'"
  elif grep -q 'spec is immutable' "$work/patch.err"; then
    pass "a NodeClaim's spec is immutable: $(head -1 "$work/patch.err")"
  else
    fail "changing a NodeClaim's spec failed, but not with 'spec is immutable':"; indent <"$work/patch.err"
  fi
  if k get nodeclaim default-x7k2p >"$work/get.out" 2>&1 && grep -Eq '^default-x7k2p +m5.large +spot +us-east-1a +kwok-default-x7k2p +True' "$work/get.out"; then
    pass "kubectl get nodeclaim shows Type, Capacity, Zone, Node and Ready: $(sed -n 2p "$work/get.out")"
  else
    fail "kubectl get nodeclaim columns:"; indent <"$work/get.out"
  fi

  # Invalid NodePools: rejected by the API server, with the field named.
  rejected "$(nodepool sometimes "$template
      requirements: []
  disruption: {consolidationPolicy: Sometimes, consolidateAfter: 1m}")" \
    spec.disruption.consolidationPolicy 'Unsupported value: "Sometimes"'
  rejected "$(nodepool no-consolidate-after "$template
      requirements: []
  disruption: {consolidationPolicy: WhenEmpty}")" \
    spec.disruption.consolidateAfter 'Required value'
  rejected "$(nodepool no-node-class '  template: {spec: {requirements: []}}')" \
    spec.template.spec.nodeClassRef 'Required value'
  rejected "$(nodepool gt-not-a-number "$template
      requirements: [{key: karpenter.k8s.aws/instance-generation, operator: Gt, values: [three]}]")" \
    spec.template.spec.requirements "must have a single positive integer value"
  rejected "$(nodepool in-without-values "$template
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: []}]")" \
    spec.template.spec.requirements "requirements with operator 'In' must have a value defined"
  rejected "$(nodepool min-values "$template
      requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large], minValues: 2}]")" \
    spec.template.spec.requirements "must have at least that many values"
  rejected "$(nodepool hostname "$template
      requirements: [{key: kubernetes.io/hostname, operator: In, values: [a]}]")" \
    'spec.template.spec.requirements[0].key' 'label "kubernetes.io/hostname" is restricted'
  rejected "$(nodepool bad-operator "$template
      requirements: [{key: a, operator: Matches, values: [a]}]")" \
    'spec.template.spec.requirements[0].operator' 'Unsupported value: "Matches"'
  rejected "$(nodepool restricted-label "  template:
    metadata: {labels: {karpenter.sh/custom: x}}
    spec:
      nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
      requirements: []")" \
    spec.template.metadata.labels 'label domain "karpenter.sh" is restricted'
  rejected "$(nodepool schedule-alone "$template
      requirements: []
  disruption: {consolidateAfter: 1m, budgets: [{nodes: '0', schedule: '@daily'}]}")" \
    spec.disruption.budgets "'schedule' must be set with 'duration'"
  rejected "$(nodepool too-many-percent "$template
      requirements: []
  disruption: {consolidateAfter: 1m, budgets: [{nodes: 150%}]}")" \
    'spec.disruption.budgets[0].nodes' 'should match'
  rejected "$(nodepool expire-soon "$template
      requirements: []
      expireAfter: 1d")" \
    spec.template.spec.expireAfter 'should match'
  rejected "$(nodepool heavy "$template
      requirements: []
  weight: 101")" \
    spec.weight 'less than or equal to 100'
  rejected "$(nodepool minimal "  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: KWOKNodeClass, name: default}
      requirements: []")" \
    spec.template.spec.nodeClassRef 'nodeClassRef.group is immutable'
  # Static NodePools (spec.replicas, Karpenter's StaticCapacity): only limits.nodes, no weight, and no turning a
  # NodePool static or dynamic once it exists; kubectl scale sets the replicas through the scale subresource.
  rejected "$(nodepool static-cpu "$template
      requirements: []
  replicas: 2
  limits: {cpu: '100', nodes: '5'}")" \
    spec "only 'limits.nodes' is supported on static NodePools"
  rejected "$(nodepool static-weight "$template
      requirements: []
  replicas: 2
  weight: 10")" \
    spec "'weight' is not supported on static NodePools"
  if k apply -f - <<<"$(nodepool static "$template
      requirements: []
  replicas: 2
  limits: {nodes: '5'}")" >"$work/apply.out" 2>"$work/apply.err"; then
    pass "a static NodePool with limits.nodes applies"
  else
    fail "static NodePool:"; indent <"$work/apply.err"
  fi
  if k scale nodepool static --replicas=3 >"$work/scale.out" 2>"$work/scale.err"; then
    field_is nodepool/static .spec.replicas 3
  else
    fail "kubectl scale nodepool static:"; indent <"$work/scale.err"
  fi
  rejected "$(nodepool static "$template
      requirements: []
  limits: {nodes: '5'}")" \
    spec 'Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes'
  if k scale nodepool minimal --replicas=1 >"$work/scale.out" 2>"$work/scale.err"; then
    fail "kubectl scale of the dynamic NodePool minimal was accepted"
  elif grep -qF 'Cannot transition NodePool between static' "$work/scale.err"; then
    pass "kubectl scale of a dynamic NodePool is refused: $(head -1 "$work/scale.err")"
  else
    fail "kubectl scale nodepool minimal failed, but not saying why:"; indent <"$work/scale.err"
  fi
  if k get nodepools -o name >"$work/names.out" 2>&1 && [ "$(sort "$work/names.out" | tr '\n' ' ')" = \
       "nodepool.karpenter.sh/default nodepool.karpenter.sh/every-field nodepool.karpenter.sh/minimal nodepool.karpenter.sh/static " ]; then
    pass "no rejected NodePool was stored"
  else
    fail "NodePools stored: want default, every-field, minimal, static; got:"; indent <"$work/names.out"
  fi

  # EC2NodeClasses: every upstream field applies with strict field validation (kubectl 1.25+; older kubectl checks
  # unknown fields against the published schema itself) and reads back as written.
  local strict=()
  if k apply --help 2>/dev/null | grep -q "strict"; then strict=(--validate=strict); fi
  if k apply "${strict[@]}" -f "$here/ec2nodeclass-all-fields.yaml" >"$work/apply.out" 2>"$work/apply.err"; then
    k get ec2nodeclass every-field -o json >"$work/every-field-ec2.json"
    if python3 "$here/check_manifests.py" --contains "$here/ec2nodeclass-all-fields.yaml" "$work/every-field-ec2.json" \
         >"$work/contains.out"; then
      pass "EC2NodeClass with every v1 field set applies ${strict[*]} and reads back as written"
    else
      fail "EC2NodeClass with every v1 field set reads back differently:"; indent <"$work/contains.out"
    fi
  else
    fail "EC2NodeClass with every v1 field set:"; indent <"$work/apply.err"
  fi
  # One with a role and an AMI alias, as Karpenter's getting started writes it: metadataOptions defaulted.
  if k apply -f - <<<"$(ec2nodeclass minimal "$discovery
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}]")" >"$work/apply.out" 2>"$work/apply.err"; then
    pass "an EC2NodeClass with a role and an alias applies"
  else
    fail "EC2NodeClass minimal:"; indent <"$work/apply.err"
  fi
  field_is ec2nodeclass/minimal .spec.metadataOptions.httpTokens required
  field_is ec2nodeclass/minimal .spec.metadataOptions.httpPutResponseHopLimit 1
  field_is ec2nodeclass/minimal .spec.metadataOptions.httpEndpoint enabled
  field_is ec2nodeclass/minimal .spec.metadataOptions.httpProtocolIPv6 disabled
  # Its status as the controller writes it, through the status subresource; the printer columns show it.
  status='{"status": {"subnets": [{"id": "subnet-0a1b2c3d", "zone": "us-west-2a", "zoneID": "usw2-az1"}],
    "securityGroups": [{"id": "sg-0123456789abcdef0", "name": "eks-cluster-sg-my-cluster"}],
    "amis": [{"id": "ami-0123456789abcdef0", "name": "amazon-eks-node-al2023-x86_64-standard-1.26-v20240101",
              "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}],
    "instanceProfile": "KarpenterNodeRole-my-cluster",
    "conditions": [{"type": "Ready", "status": "True", "reason": "Ready", "message": "", "lastTransitionTime": "'$now'"}]}}'
  patch_status ec2nodeclass minimal "$status" karpenter.k8s.aws
  field_is ec2nodeclass/minimal '.status.subnets[0].zone' us-west-2a
  field_is ec2nodeclass/minimal '.status.amis[0].requirements[0].values[0]' amd64
  field_is ec2nodeclass/minimal .status.instanceProfile KarpenterNodeRole-my-cluster
  if k get ec2nodeclass minimal -o wide >"$work/get.out" 2>&1 && head -1 "$work/get.out" | grep -q 'READY *AGE *ROLE' &&
     grep -Eq '^minimal +True +[0-9]+[smh] +KarpenterNodeRole-my-cluster' "$work/get.out"; then
    pass "kubectl get ec2nodeclass -o wide shows Ready, Age and Role: $(sed -n 2p "$work/get.out")"
  else
    fail "kubectl get ec2nodeclass columns:"; indent <"$work/get.out"
  fi
  # Invalid EC2NodeClasses: rejected by the API server, with the field named, in Karpenter's words.
  rejected "$(ec2nodeclass alias-and-tags "$discovery
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest, tags: {team: platform}}]")" \
    spec.amiSelectorTerms "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms"
  rejected "$(ec2nodeclass alias-and-id "$discovery
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}, {id: ami-0123456789abcdef0}]")" \
    spec.amiSelectorTerms "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms"
  rejected "$(ec2nodeclass role-and-profile "$discovery
  role: KarpenterNodeRole-my-cluster
  instanceProfile: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}]")" \
    spec "must specify exactly one of ['role', 'instanceProfile']"
  rejected "$(ec2nodeclass no-subnets "  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}]")" \
    spec.subnetSelectorTerms 'Required value'
  rejected "$(ec2nodeclass empty-subnets "  subnetSelectorTerms: []
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}]")" \
    spec.subnetSelectorTerms 'subnetSelectorTerms cannot be empty'
  rejected "$(ec2nodeclass windows-pinned "$discovery
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: windows2022@v20240101}]")" \
    'spec.amiSelectorTerms[0].alias' "windows families may only specify version 'latest'"
  rejected "$(ec2nodeclass family-mismatch "$discovery
  role: KarpenterNodeRole-my-cluster
  amiFamily: AL2
  amiSelectorTerms: [{alias: al2023@latest}]")" \
    spec "if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias"
  rejected "$(ec2nodeclass no-family "$discovery
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{id: ami-0123456789abcdef0}]")" \
    spec 'must specify amiFamily if amiSelectorTerms does not contain an alias'
  rejected "$(ec2nodeclass restricted-tag "$discovery
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}]
  tags: {karpenter.sh/nodepool: default}")" \
    spec.tags 'tag contains a restricted tag matching karpenter.sh/nodepool'
  rejected "$(ec2nodeclass two-roots "$discovery
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}]
  blockDeviceMappings: [{rootVolume: true, ebs: {volumeSize: 20Gi}}, {rootVolume: true, ebs: {volumeSize: 20Gi}}]")" \
    spec.blockDeviceMappings 'must have only one blockDeviceMappings with rootVolume'
  rejected "$(ec2nodeclass hop-limit "$discovery
  role: KarpenterNodeRole-my-cluster
  amiSelectorTerms: [{alias: al2023@latest}]
  metadataOptions: {httpPutResponseHopLimit: 65}")" \
    spec.metadataOptions.httpPutResponseHopLimit 'less than or equal to 64'
  if k get ec2nodeclasses -o name >"$work/names.out" 2>&1 && [ "$(sort "$work/names.out" | tr '\n' ' ')" = \
       "ec2nodeclass.karpenter.k8s.aws/every-field ec2nodeclass.karpenter.k8s.aws/minimal " ]; then
    pass "no rejected EC2NodeClass was stored"
  else
    fail "EC2NodeClasses stored: want every-field, minimal; got:"; indent <"$work/names.out"
  fi

  # What the controller's ServiceAccount may do: all it needs...
  can yes create pods --subresource=eviction -A
  can yes list pods -A
  can yes delete pods -n default
  can yes patch pods --subresource=status -n default
  can yes create nodes
  can yes delete nodes
  can yes patch nodes --subresource=status
  can yes watch namespaces
  can yes create nodeclaims.karpenter.sh
  can yes delete nodeclaims.karpenter.sh
  can yes update nodepools.karpenter.sh
  can yes patch nodeclaims.karpenter.sh --subresource=status
  can yes update nodepools.karpenter.sh --subresource=status
  can yes create events -n default
  can yes patch events.events.k8s.io -n default
  can yes create leases.coordination.k8s.io -n scalewright
  can yes update leases.coordination.k8s.io -n kube-node-lease
  can yes delete leases.coordination.k8s.io -n kube-node-lease
  can yes update deployments.apps --subresource=scale -n default
  can yes patch statefulsets.apps --subresource=scale -n default
  can yes get replicasets.apps --subresource=scale -n default
  can yes watch daemonsets.apps -A
  can yes list poddisruptionbudgets.policy -A
  can yes list priorityclasses.scheduling.k8s.io
  can yes watch horizontalpodautoscalers.autoscaling -A
  review yes list keda.sh scaledobjects "" ""
  review yes watch keda.sh scaledobjects "" default
  review yes patch keda.sh scaledobjects status default
  review yes update keda.sh scaledobjects status default
  review yes list metrics.k8s.io pods "" default
  can yes list csinodes.storage.k8s.io
  can yes list storageclasses.storage.k8s.io
  can yes list persistentvolumes
  can yes list persistentvolumeclaims -A
  can yes list ec2nodeclasses.karpenter.k8s.aws
  can yes watch ec2nodeclasses.karpenter.k8s.aws
  can yes patch ec2nodeclasses.karpenter.k8s.aws --subresource=status
  can yes get configmaps -n kube-system
  can yes update configmaps -n kube-system
  can yes create configmaps -n kube-system
  # ...and nothing more.
  can no delete deployments.apps -n default
  can no update deployments.apps -n default
  can no create pods -n default
  can no update pods -n default
  can no delete daemonsets.apps -n kube-system
  can no get secrets -n kube-system
  can no list secrets -A
  can no get configmaps -n default
  can no delete configmaps -n kube-system
  can no patch horizontalpodautoscalers.autoscaling -n default
  review no update keda.sh scaledobjects "" default
  review no delete keda.sh scaledobjects "" default
  review no list metrics.k8s.io nodes "" ""
  can no delete namespaces
  can no delete persistentvolumes
  can no update ec2nodeclasses.karpenter.k8s.aws
  can no delete ec2nodeclasses.karpenter.k8s.aws
  can no update ec2nodeclasses.karpenter.k8s.aws --subresource=status
  can no delete events -n default
  can no create customresourcedefinitions.apiextensions.k8s.io
  can no create clusterrolebindings.rbac.authorization.k8s.io
  can no escalate clusterroles.rbac.authorization.k8s.io
  can no impersonate serviceaccounts -n scalewright
  can no create serviceaccounts --subresource=token -n scalewright
}

# patch_status KIND NAME JSON [GROUP]: merge JSON into the object's status through the status subresource (GROUP:
# karpenter.sh unless given). kubectl 1.24+ patches it (--subresource); older kubectl (Debian 12's 1.20) PUTs the
# object with its new status there.
patch_status() {
  local kind=$1 name=$2 json=$3 group=${4:-karpenter.sh} rc
  if k patch --help 2>/dev/null | grep -q -- '--subresource'; then
    k patch "$kind" "$name" --subresource=status --type=merge -p "$json" >"$work/patch.out" 2>"$work/patch.err"
    rc=$?
  else
    k get "$kind" "$name" -o json >"$work/object.json" 2>"$work/patch.err" &&
      python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); o.update(json.loads(sys.argv[2])); print(json.dumps(o))' \
        "$work/object.json" "$json" >"$work/object-status.json" &&
      k replace --raw "/apis/$group/v1/${kind}$(case $kind in *s) echo es ;; *) echo s ;; esac)/$name/status" -f "$work/object-status.json" >"$work/patch.out" 2>>"$work/patch.err"
    rc=$?
  fi
  if [ "$rc" -eq 0 ]; then pass "$kind $name: status written through the status subresource"; else fail "$kind $name status:"; indent <"$work/patch.err"; fi
}

case "$mode" in
  offline) offline ;;
  apiserver) apiserver ;;
  *) echo "usage: deploy_test.sh offline|apiserver REPO" >&2; exit 2 ;;
esac
if [ "$failures" -eq 0 ]; then
  echo "PASS  deploy_test.sh $mode"
  exit 0
fi
echo "FAILED deploy_test.sh $mode: $failures failure(s)"
exit 1

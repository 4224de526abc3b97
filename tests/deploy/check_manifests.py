#!/usr/bin/env python3
"""Offline checks of deploy/: the kustomize base's output, the CRDs, the RBAC rules and the Helm chart agree, and
deploy/aws/'s IAM policies grant what the AWS provider calls and nothing more.

  check_manifests.py REPO KUSTOMIZE_OUTPUT [RENDERED_CHART RENDERED_CHART_WITH_SERVICEMONITOR RENDERED_CHART_FOR_AWS]
  check_manifests.py --contains WRITTEN.yaml READ_BACK.json   every field written reads back with its value

KUSTOMIZE_OUTPUT is `kubectl kustomize deploy/kustomize`. RENDERED_CHART, when given, is the chart rendered for
release "scalewright" in namespace "scalewright" with its default values (by `helm template` or
render_chart.go); without it the chart is checked from its sources (values.yaml, templates' kinds and names).
RENDERED_CHART_FOR_AWS is the chart rendered with AWS_VALUES below.
Prints one line per check; exits 1 when any fails.
"""
import json
import os
import re
import sys

import yaml

failures = []


def check(ok, what, detail=""):
    if ok:
        print(f"ok    {what}")
    else:
        failures.append(what)
        print(f"FAIL  {what}" + (f"\n      {detail}" if detail else ""))


def load_all(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def key(obj):
    meta = obj.get("metadata", {})
    return (obj.get("kind"), meta.get("namespace", ""), meta.get("name"))


# What `scalewright run` may do: (apiGroup, resource, verb) for every verb the rules grant. Changing the rules
# means changing this list, on purpose.
def triples(group, resources, verbs):
    return {(group, r, v) for r in resources for v in verbs}


EXPECTED_CLUSTER_RULES = set().union(
    triples("", ["nodes"], ["get", "list", "watch", "create", "patch", "update", "delete"]),
    triples("", ["nodes/status"], ["patch", "update"]),
    triples("", ["pods"], ["get", "list", "watch", "delete"]),
    triples("", ["pods/status"], ["patch"]),
    triples("", ["pods/eviction"], ["create"]),
    triples("", ["namespaces"], ["get", "list", "watch"]),
    triples("events.k8s.io", ["events"], ["create", "patch"]),
    triples("", ["events"], ["create", "patch"]),
    triples("coordination.k8s.io", ["leases"], ["get", "list", "watch", "create", "update", "patch", "delete"]),
    triples("karpenter.sh", ["nodepools", "nodeclaims"], ["get", "list", "watch", "create", "update", "patch", "delete"]),
    triples("karpenter.sh", ["nodepools/status", "nodeclaims/status"], ["get", "patch", "update"]),
    triples("karpenter.k8s.aws", ["ec2nodeclasses"], ["get", "list", "watch"]),
    triples("karpenter.k8s.aws", ["ec2nodeclasses/status"], ["patch"]),
    # Cluster API (cloud provider clusterapi): the scalable objects and their Scales, Machines marked for deletion,
    # the infrastructure templates read for an empty group's capacity.
    triples("cluster.x-k8s.io", ["machinedeployments", "machinesets", "machinepools"], ["get", "list", "watch"]),
    triples("cluster.x-k8s.io", ["machinedeployments/scale", "machinesets/scale", "machinepools/scale"],
            ["get", "update", "patch"]),
    triples("cluster.x-k8s.io", ["machines"], ["get", "list", "watch", "update", "patch"]),
    triples("infrastructure.cluster.x-k8s.io", ["*"], ["get", "list", "watch"]),
    # NodePools on Cluster API: ClusterAPINodeClasses and their status.
    triples("karpenter.cluster.x-k8s.io", ["clusterapinodeclasses"], ["get", "list", "watch"]),
    triples("karpenter.cluster.x-k8s.io", ["clusterapinodeclasses/status"], ["get", "update", "patch"]),
    triples("apps", ["deployments", "replicasets", "statefulsets", "daemonsets"], ["get", "list", "watch"]),
    triples("apps", ["deployments/scale", "statefulsets/scale", "replicasets/scale"], ["get", "update", "patch"]),
    triples("policy", ["poddisruptionbudgets"], ["get", "list", "watch"]),
    triples("scheduling.k8s.io", ["priorityclasses"], ["get", "list", "watch"]),
    triples("autoscaling", ["horizontalpodautoscalers"], ["get", "list", "watch"]),
    triples("keda.sh", ["scaledobjects"], ["get", "list", "watch"]),
    triples("keda.sh", ["scaledobjects/status"], ["patch", "update"]),
    triples("metrics.k8s.io", ["pods"], ["get", "list"]),
    triples("storage.k8s.io", ["csinodes", "storageclasses"], ["get", "list", "watch"]),
    triples("", ["persistentvolumeclaims", "persistentvolumes"], ["get", "list", "watch"]),
)
EXPECTED_KUBE_SYSTEM_RULES = triples("", ["configmaps"], ["get", "list", "watch", "create", "update", "patch"])

# The CRDs deploy/crds holds (file, name), each copied into the chart's crds/.
CRDS = [("karpenter.sh_nodepools.yaml", "nodepools.karpenter.sh"),
        ("karpenter.sh_nodeclaims.yaml", "nodeclaims.karpenter.sh"),
        ("karpenter.k8s.aws_ec2nodeclasses.yaml", "ec2nodeclasses.karpenter.k8s.aws"),
        ("karpenter.cluster.x-k8s.io_clusterapinodeclasses.yaml", "clusterapinodeclasses.karpenter.cluster.x-k8s.io")]

# Every AWS action the AWS provider calls (EC2NodeClasses and NodePools on EC2, node groups on Auto Scaling groups,
# the interruption queue), and nothing more: deploy/aws/iam-policy.json grants exactly these.
EXPECTED_IAM_ACTIONS = {
    "ec2:DescribeAvailabilityZones", "ec2:DescribeImages", "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeInstanceTypes", "ec2:DescribeInstances", "ec2:DescribeLaunchTemplateVersions",
    "ec2:DescribeLaunchTemplates", "ec2:DescribeSecurityGroups", "ec2:DescribeSpotPriceHistory", "ec2:DescribeSubnets",
    "ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate", "ec2:DeleteLaunchTemplate", "ec2:CreateTags",
    "ec2:TerminateInstances", "iam:PassRole", "ssm:GetParameter", "pricing:GetProducts", "eks:DescribeCluster",
    "iam:GetInstanceProfile", "iam:CreateInstanceProfile", "iam:TagInstanceProfile", "iam:AddRoleToInstanceProfile",
    "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile",
    "sqs:GetQueueUrl", "sqs:ReceiveMessage", "sqs:DeleteMessage",
    "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities", "autoscaling:SetDesiredCapacity",
    "autoscaling:TerminateInstanceInAutoScalingGroup",
}
# Actions that change or remove what they touch: granted only under a condition on the resource's tags (what this
# cluster owns; for Auto Scaling groups, Cluster Autoscaler's tags).
IAM_TAG_SCOPED_ACTIONS = {"ec2:CreateTags", "ec2:TerminateInstances", "ec2:DeleteLaunchTemplate",
                          "autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup",
                          "iam:CreateInstanceProfile", "iam:TagInstanceProfile", "iam:AddRoleToInstanceProfile",
                          "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"}
# What deploy/aws/README.md says to put for each placeholder, as an example.
IAM_EXAMPLE_VALUES = {"${AWS::Partition}": "aws", "${AWS::Region}": "us-west-2", "${AWS::AccountId}": "123456789012",
                      "${ClusterName}": "my-cluster", "${NodeRoleName}": "KarpenterNodeRole-my-cluster",
                      "${OidcProvider}": "oidc.eks.us-west-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"}

# The values tests/deploy renders the chart with for RENDERED_CHART_FOR_AWS (deploy_test.sh writes them).
AWS_VALUES = {
    "cloudProvider": "aws",
    "aws": {"clusterName": "my-cluster", "clusterEndpoint": "https://EXAMPLE.gr7.us-west-2.eks.amazonaws.com",
            "clusterCABundle": "LS0tLS1CRUdJTg==", "clusterServiceCIDR": "172.20.0.0/16",
            "interruptionQueue": "my-cluster", "region": "us-west-2"},
    "serviceAccount": {"annotations": {"eks.amazonaws.com/role-arn":
                                       "arn:aws:iam::123456789012:role/ScalewrightController-my-cluster"}},
}


def granted(rules):
    """The (group, resource, verb) triples the rules grant; resourceNames or nonResourceURLs count as a failure."""
    out = set()
    for rule in rules or []:
        if "resourceNames" in rule or "nonResourceURLs" in rule:
            out.add(("?", f"{rule.get('resources')} with resourceNames or nonResourceURLs", "?"))
        for g in rule.get("apiGroups", []):
            out |= triples(g, rule.get("resources", []), rule.get("verbs", []))
    return out


def describe(extra, missing):
    return f"granted but not expected: {sorted(extra)}; expected but not granted: {sorted(missing)}"


def contains(written, read_back, path=""):
    """Where READ_BACK differs from WRITTEN in a field WRITTEN sets (defaults READ_BACK adds are fine)."""
    if isinstance(written, dict) and isinstance(read_back, dict):
        return [d for k in written for d in contains(written[k], read_back.get(k), f"{path}.{k}")]
    if isinstance(written, list) and isinstance(read_back, list) and len(written) == len(read_back):
        return [d for i, (w, r) in enumerate(zip(written, read_back)) for d in contains(w, r, f"{path}[{i}]")]
    return [] if written == read_back else [f"{path}: wrote {written!r}, read back {read_back!r}"]


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--contains":
        written, read_back = load(sys.argv[2]), load(sys.argv[3])
        differences = contains(written["spec"], read_back.get("spec"), "spec")
        for d in differences:
            print(d)
        return 1 if differences else 0
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    repo, kustomize_out = sys.argv[1], sys.argv[2]
    rendered = sys.argv[3] if len(sys.argv) > 3 else None
    rendered_sm = sys.argv[4] if len(sys.argv) > 4 else None
    rendered_aws = sys.argv[5] if len(sys.argv) > 5 else None
    chart = os.path.join(repo, "deploy/helm/scalewright")

    objs = load_all(kustomize_out)
    by_key = {key(o): o for o in objs}
    want = {
        ("Namespace", "", "scalewright"),
        ("CustomResourceDefinition", "", "nodepools.karpenter.sh"),
        ("CustomResourceDefinition", "", "nodeclaims.karpenter.sh"),
        ("CustomResourceDefinition", "", "ec2nodeclasses.karpenter.k8s.aws"),
        ("CustomResourceDefinition", "", "clusterapinodeclasses.karpenter.cluster.x-k8s.io"),
        ("ServiceAccount", "scalewright", "scalewright"),
        ("ClusterRole", "", "scalewright"),
        ("ClusterRoleBinding", "", "scalewright"),
        ("Role", "kube-system", "scalewright"),
        ("RoleBinding", "kube-system", "scalewright"),
        ("Deployment", "scalewright", "scalewright"),
        ("Service", "scalewright", "scalewright"),
        ("PodDisruptionBudget", "scalewright", "scalewright"),
    }
    check(set(by_key) == want and len(objs) == len(want), "kustomize base holds exactly the expected objects",
          f"extra: {sorted(set(by_key) - want)}; missing: {sorted(want - set(by_key))}")

    # CRDs: the kustomize output carries deploy/crds unchanged; the chart's crds/ are byte-identical copies.
    for file, name in CRDS:
        src = os.path.join(repo, "deploy/crds", file)
        out = by_key.get(("CustomResourceDefinition", "", name))
        check(out == load(src), f"kustomize output's {name} equals deploy/crds/{file}")
        copy = os.path.join(chart, "crds", file)
        same = os.path.exists(copy) and open(copy, "rb").read() == open(src, "rb").read()
        check(same, f"chart's crds/{file} is a copy of deploy/crds/{file}",
              f"run: cp deploy/crds/{file} deploy/helm/scalewright/crds/")
    crd_files = sorted(os.listdir(os.path.join(chart, "crds")))
    check(crd_files == sorted(file for file, _ in CRDS),
          f"chart's crds/ holds the {len(CRDS)} CRDs and nothing else", f"found {crd_files}")

    # RBAC: one copy of the rules, in the chart's files/, which the kustomize base includes and the chart reads.
    cluster_rules = load(os.path.join(chart, "files/clusterrole.yaml"))["rules"]
    ks_rules = load(os.path.join(chart, "files/role.yaml"))["rules"]
    got = granted(by_key.get(("ClusterRole", "", "scalewright"), {}).get("rules"))
    check(got == EXPECTED_CLUSTER_RULES, "ClusterRole grants exactly the controller's verbs",
          describe(got - EXPECTED_CLUSTER_RULES, EXPECTED_CLUSTER_RULES - got))
    got = granted(by_key.get(("Role", "kube-system", "scalewright"), {}).get("rules"))
    check(got == EXPECTED_KUBE_SYSTEM_RULES, "Role in kube-system grants exactly configmaps get/list/watch/create/update/patch",
          describe(got - EXPECTED_KUBE_SYSTEM_RULES, EXPECTED_KUBE_SYSTEM_RULES - got))
    check(by_key.get(("ClusterRole", "", "scalewright"), {}).get("rules") == cluster_rules,
          "kustomize ClusterRole's rules are files/clusterrole.yaml's")
    templates = os.path.join(chart, "templates")
    read = lambda name: open(os.path.join(templates, name)).read()
    check('.Files.Get $path' in read("_helpers.tpl"), "chart helper scalewright.rbacFile reads the chart's files (.Files.Get)")
    for template, source in (("clusterrole.yaml", "files/clusterrole.yaml"), ("role.yaml", "files/role.yaml"),
                             ("rolebinding.yaml", "files/role.yaml")):
        text = read(template)
        check(f'include "scalewright.rbacFile" (list . "{source}")' in text,
              f"chart's templates/{template} takes its rules/namespace from {source}")
    for template in ("clusterrole.yaml", "role.yaml"):
        check("toYaml $role.rules" in read(template) and "- apiGroups" not in read(template),
              f"chart's templates/{template} writes no rules of its own")
    for binding in (("ClusterRoleBinding", "", "scalewright"), ("RoleBinding", "kube-system", "scalewright")):
        b = by_key.get(binding, {})
        check(b.get("subjects") == [{"kind": "ServiceAccount", "name": "scalewright", "namespace": "scalewright"}]
              and b.get("roleRef", {}).get("name") == "scalewright",
              f"{binding[0]} binds ServiceAccount scalewright/scalewright to its role")

    # The Deployment: what the brief of `scalewright run` asks for.
    dep = by_key.get(("Deployment", "scalewright", "scalewright"), {})
    pod = dep.get("spec", {}).get("template", {}).get("spec", {})
    c = (pod.get("containers") or [{}])[0]
    check(dep.get("spec", {}).get("replicas") == 2, "Deployment runs 2 replicas")
    args = c.get("args", [])
    check(args[:1] == ["run"], "container args start with the run subcommand", f"args: {args}")
    for flag in ("--cloud-provider=kwok", "--leader-elect=true", "--leader-election-namespace=$(POD_NAMESPACE)",
                 "--metrics-bind-address=:8080", "--log-format=json"):
        check(flag in args, f"container args hold {flag}", f"args: {args}")
    check(not any(a.startswith("--kubeconfig") for a in args), "no --kubeconfig in-cluster")
    env = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") for e in c.get("env", [])}
    check(env.get("POD_NAMESPACE") == "metadata.namespace", "POD_NAMESPACE comes from the downward API")
    check(c.get("livenessProbe", {}).get("httpGet", {}).get("path") == "/healthz", "liveness probe GETs /healthz")
    check(c.get("readinessProbe", {}).get("httpGet", {}).get("path") == "/readyz", "readiness probe GETs /readyz")
    check(c.get("ports") == [{"name": "http-metrics", "containerPort": 8080, "protocol": "TCP"}],
          "container port 8080 is named http-metrics")
    sc, psc = c.get("securityContext", {}), pod.get("securityContext", {})
    check(psc.get("runAsNonRoot") is True and psc.get("runAsUser", 0) != 0, "pod runs as a non-root user")
    check(sc.get("readOnlyRootFilesystem") is True and sc.get("allowPrivilegeEscalation") is False
          and sc.get("capabilities", {}).get("drop") == ["ALL"], "container: read-only root, no privilege escalation, no capabilities")
    check(bool(c.get("resources", {}).get("requests")) and bool(c.get("resources", {}).get("limits")),
          "container has resource requests and limits")
    svc = by_key.get(("Service", "scalewright", "scalewright"), {})
    check(svc.get("spec", {}).get("ports") == [{"name": "http-metrics", "port": 8080, "targetPort": "http-metrics", "protocol": "TCP"}],
          "Service exposes port 8080 named http-metrics")
    sel = svc.get("spec", {}).get("selector", {})
    pod_labels = dep.get("spec", {}).get("template", {}).get("metadata", {}).get("labels", {})
    check(sel and all(pod_labels.get(k) == v for k, v in sel.items()), "Service selects the controller's pods")
    svc_labels = svc.get("metadata", {}).get("labels", {})
    check(svc_labels.get("app.kubernetes.io/name") == "scalewright" and svc_labels.get("app.kubernetes.io/instance") == "scalewright",
          "Service carries app.kubernetes.io/name and instance labels for a ServiceMonitor to select")

    # The chart, from its sources: the same kinds, every name from the fullname helper, values equal to the base.
    kinds = {}
    for name in sorted(os.listdir(templates)):
        if name.endswith(".yaml"):
            for kind in re.findall(r"^kind: (\w+)$", read(name), re.M):
                kinds[kind] = name
                check(re.search(r'^  name: \{\{ include "scalewright\.(fullname|serviceAccountName)" \. \}\}$', read(name), re.M),
                      f"chart's templates/{name} names its {kind} with the fullname helper")
    base_kinds = {k for (k, _, _) in want} - {"Namespace", "CustomResourceDefinition"}
    check(set(kinds) == base_kinds | {"ServiceMonitor"},
          "chart templates hold the kustomize base's kinds (without Namespace and CRDs) and a ServiceMonitor",
          f"chart: {sorted(kinds)}; base: {sorted(base_kinds)}")
    check(read("servicemonitor.yaml").lstrip().split("\n")[1].startswith("{{- if .Values.serviceMonitor.enabled }}"),
          "chart's ServiceMonitor renders only with serviceMonitor.enabled")
    values = load(os.path.join(chart, "values.yaml"))
    chart_meta = load(os.path.join(chart, "Chart.yaml"))
    same = [
        ("replicas", values["replicas"], dep.get("spec", {}).get("replicas")),
        ("podSecurityContext", values["podSecurityContext"], psc),
        ("securityContext", values["securityContext"], sc),
        ("resources", values["resources"], c.get("resources")),
        ("tolerations", values["tolerations"], pod.get("tolerations")),
        ("priorityClassName", values["priorityClassName"], pod.get("priorityClassName")),
        ("affinity.nodeAffinity", values["affinity"]["nodeAffinity"], pod.get("affinity", {}).get("nodeAffinity")),
        ("metrics.port", values["metrics"]["port"], c.get("ports", [{}])[0].get("containerPort")),
        ("cloudProvider", f"--cloud-provider={values['cloudProvider']}", next((a for a in args if a.startswith("--cloud-provider=")), None)),
        ("logFormat", f"--log-format={values['logFormat']}", next((a for a in args if a.startswith("--log-format=")), None)),
        ("image", f"{values['image']['repository']}:{values['image']['tag'] or chart_meta['appVersion']}", c.get("image")),
        ("podDisruptionBudget.maxUnavailable", values["podDisruptionBudget"]["maxUnavailable"],
         by_key.get(("PodDisruptionBudget", "scalewright", "scalewright"), {}).get("spec", {}).get("maxUnavailable")),
    ]
    for what, chart_value, base_value in same:
        check(chart_value == base_value, f"chart's values.yaml {what} equals the kustomize base's",
              f"chart: {chart_value!r}; base: {base_value!r}")

    check_iam_policies(repo)
    if rendered:
        compare_rendered(objs, load_all(rendered), rendered_sm and load_all(rendered_sm))
    if rendered_aws:
        check_rendered_for_aws(load_all(rendered_aws))
    if failures:
        print(f"check_manifests.py: {len(failures)} of the checks above failed")
    return 1 if failures else 0


def check_iam_policies(repo):
    """deploy/aws/: the controller's policy grants exactly EXPECTED_IAM_ACTIONS, writes only on what is tagged as
    this cluster's; every placeholder of the three policies is one the README explains; the controller's policy and
    its trust policy are well-formed (moto's IAM validator, where moto is installed; it has none for a queue's)."""
    folder = os.path.join(repo, "deploy/aws")
    readme = open(os.path.join(folder, "README.md")).read()
    for file in ("iam-policy.json", "irsa-trust-policy.json", "interruption-queue-policy.json"):
        text = open(os.path.join(folder, file)).read()
        try:
            policy = json.loads(text)
        except ValueError as e:
            check(False, f"deploy/aws/{file} is JSON", str(e))
            continue
        placeholders = set(re.findall(r"\$\{[^}]*\}", text))
        check(placeholders <= set(IAM_EXAMPLE_VALUES) and all(p in readme for p in placeholders),
              f"deploy/aws/{file}'s placeholders are explained in deploy/aws/README.md: {sorted(placeholders)}",
              f"unknown: {sorted(placeholders - set(IAM_EXAMPLE_VALUES))}; "
              f"not in the README: {sorted(p for p in placeholders if p not in readme)}")
        if file == "interruption-queue-policy.json":
            continue
        try:
            from moto.iam.policy_validation import IAMPolicyDocumentValidator, IAMTrustPolicyDocumentValidator
        except ImportError:
            print(f"note  deploy/aws/{file} not judged by moto's IAM policy validator (moto is not installed)")
        else:
            filled = text
            for placeholder, value in IAM_EXAMPLE_VALUES.items():
                filled = filled.replace(placeholder, value)
            validator = IAMPolicyDocumentValidator if file == "iam-policy.json" else IAMTrustPolicyDocumentValidator
            try:
                validator(filled).validate()
                check(True, f"deploy/aws/{file}, filled in, is a valid IAM policy (moto's validator)")
            except Exception as e:  # moto raises its own MalformedPolicyDocument
                check(False, f"deploy/aws/{file}, filled in, is a valid IAM policy (moto's validator)", str(e))
        if file != "iam-policy.json":
            continue
        statements = policy.get("Statement", [])
        as_list = lambda v: v if isinstance(v, list) else [v]
        granted_actions = {a for s in statements if s.get("Effect") == "Allow" for a in as_list(s.get("Action", []))}
        check(granted_actions == EXPECTED_IAM_ACTIONS, "deploy/aws/iam-policy.json grants exactly the AWS provider's calls",
              f"granted but not called: {sorted(granted_actions - EXPECTED_IAM_ACTIONS)}; "
              f"called but not granted: {sorted(EXPECTED_IAM_ACTIONS - granted_actions)}")
        check(all(s.get("Effect") == "Allow" and "NotAction" not in s and "NotResource" not in s for s in statements),
              "deploy/aws/iam-policy.json has Allow statements only, without NotAction or NotResource")
        loose = [f"{s.get('Sid')}: {a}" for s in statements for a in as_list(s.get("Action", []))
                 if "*" in as_list(s.get("Resource")) and not a.split(":")[1].startswith(("Describe", "Get"))]
        check(not loose, "deploy/aws/iam-policy.json grants no write on every resource (Resource \"*\" for reads only)",
              f"{loose}")
        unscoped = [f"{s.get('Sid')}: {a}" for s in statements for a in as_list(s.get("Action", []))
                    if a in IAM_TAG_SCOPED_ACTIONS and not any(k.startswith("aws:ResourceTag/") or k.startswith("aws:RequestTag/")
                                                               for cond in s.get("Condition", {}).values() for k in cond)]
        check(not unscoped, "deploy/aws/iam-policy.json tags, terminates, deletes and scales only under a tag condition",
              f"{unscoped}")


def check_rendered_for_aws(objs):
    """The chart rendered with AWS_VALUES: the flags, AWS_REGION and the IRSA annotation are there."""
    aws = AWS_VALUES["aws"]
    dep = next((o for o in objs if o["kind"] == "Deployment"), {})
    c = (dep.get("spec", {}).get("template", {}).get("spec", {}).get("containers") or [{}])[0]
    args = c.get("args", [])
    want = ["--cloud-provider=aws", f"--cluster-name={aws['clusterName']}", f"--cluster-endpoint={aws['clusterEndpoint']}",
            f"--cluster-ca-bundle={aws['clusterCABundle']}", f"--cluster-service-cidr={aws['clusterServiceCIDR']}",
            f"--interruption-queue={aws['interruptionQueue']}"]
    check(args[1:1 + len(want)] == want, "cloudProvider aws renders --cloud-provider=aws and the aws.* settings as flags",
          f"args: {args}")
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    check(env.get("AWS_REGION") == aws["region"], "aws.region renders env AWS_REGION", f"env: {c.get('env')}")
    sa = next((o for o in objs if o["kind"] == "ServiceAccount"), {})
    check(sa.get("metadata", {}).get("annotations") == AWS_VALUES["serviceAccount"]["annotations"],
          "serviceAccount.annotations puts eks.amazonaws.com/role-arn on the ServiceAccount (IRSA)",
          f"annotations: {sa.get('metadata', {}).get('annotations')}")


HELM_ONLY_LABELS = ("helm.sh/chart", "app.kubernetes.io/version", "app.kubernetes.io/managed-by")


def strip_labels(obj):
    """The object without its labels (returned separately): Helm adds its own, the rest must match."""
    import copy
    o = copy.deepcopy(obj)
    labels = o.get("metadata", {}).pop("labels", {}) or {}
    tmpl = o.get("spec", {}).get("template", {}).get("metadata", {})
    pod_labels = tmpl.pop("labels", {}) if isinstance(tmpl, dict) else {}
    return o, labels, pod_labels


def compare_rendered(base, chart_objs, chart_sm_objs):
    """The chart rendered with its defaults (release scalewright, namespace scalewright) equals the base."""
    base_by = {key(o): o for o in base if o["kind"] not in ("Namespace", "CustomResourceDefinition")}
    chart_by = {key(o): o for o in chart_objs}
    check(set(chart_by) == set(base_by), "rendered chart holds the same kinds, namespaces and names as the kustomize base",
          f"chart only: {sorted(set(chart_by) - set(base_by))}; base only: {sorted(set(base_by) - set(chart_by))}")
    for k in sorted(set(chart_by) & set(base_by)):
        b, bl, bpl = strip_labels(base_by[k])
        h, hl, hpl = strip_labels(chart_by[k])
        check(b == h, f"rendered chart's {k[0]} {k[2]} equals the base's (labels aside)",
              first_difference(b, h))
        for base_labels, chart_labels, where in ((bl, hl, "labels"), (bpl, hpl, "pod labels")):
            if not base_labels and not chart_labels:
                continue
            missing = {x: v for x, v in base_labels.items() if chart_labels.get(x) != v}
            extra = set(chart_labels) - set(base_labels) - set(HELM_ONLY_LABELS)
            check(not missing and not extra, f"rendered chart's {k[0]} {k[2]} {where} are the base's plus Helm's",
                  f"missing or different: {missing}; extra: {sorted(extra)}")
    if chart_sm_objs is not None:
        sms = [o for o in chart_sm_objs if o["kind"] == "ServiceMonitor"]
        check(len(sms) == 1 and sms[0]["apiVersion"] == "monitoring.coreos.com/v1",
              "serviceMonitor.enabled=true renders one monitoring.coreos.com/v1 ServiceMonitor")
        check(not any(o["kind"] == "ServiceMonitor" for o in chart_objs), "default values render no ServiceMonitor")
        if sms:
            sm = sms[0]["spec"]
            svc = next(o for o in chart_sm_objs if o["kind"] == "Service")
            labels = svc["metadata"]["labels"]
            check(all(labels.get(x) == v for x, v in sm["selector"]["matchLabels"].items()),
                  "the ServiceMonitor's selector matches the Service's labels")
            check([e["port"] for e in sm["endpoints"]] == ["http-metrics"] and sm["endpoints"][0].get("path") == "/metrics",
                  "the ServiceMonitor scrapes port http-metrics, path /metrics")
            check(sm.get("namespaceSelector", {}).get("matchNames") == [svc["metadata"]["namespace"]],
                  "the ServiceMonitor looks in the Service's namespace")


def first_difference(a, b, path=""):
    if type(a) != type(b):
        return f"at {path or '.'}: base {a!r}, chart {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return first_difference(a.get(k), b.get(k), f"{path}.{k}")
    elif isinstance(a, list):
        if len(a) != len(b):
            return f"at {path}: base has {len(a)} items, chart {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return f"at {path or '.'}: base {a!r}, chart {b!r}"


if __name__ == "__main__":
    sys.exit(main())

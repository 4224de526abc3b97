{{/* The chart's name, or nameOverride; 63 characters at most (a label value). */}}
{{- define "scalewright.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of every object: fullnameOverride, or the release name when it already holds the chart's name ("scalewright"
for `helm install scalewright ...`, the names the kustomize base uses), or RELEASE-NAME.
*/}}
{{- define "scalewright.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Chart name and version, for the helm.sh/chart label. */}}
{{- define "scalewright.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "scalewright.labels" -}}
helm.sh/chart: {{ include "scalewright.chart" . }}
{{ include "scalewright.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: scalewright
{{- end }}

{{/* The labels that select the controller's pods (Deployment, Service, PodDisruptionBudget, ServiceMonitor). */}}
{{- define "scalewright.selectorLabels" -}}
app.kubernetes.io/name: {{ include "scalewright.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The ServiceAccount the controller runs as. */}}
{{- define "scalewright.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "scalewright.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The controller's image: repository@digest, or repository:tag (tag defaults to the chart's appVersion). */}}
{{- define "scalewright.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
The rules of an RBAC object kept in the chart's files/ (the one copy, which deploy/kustomize includes too).
Call with (list $ "files/clusterrole.yaml"); returns the parsed object.
*/}}
{{- define "scalewright.rbacFile" -}}
{{- $root := index . 0 }}
{{- $path := index . 1 }}
{{- $object := $root.Files.Get $path | fromYaml }}
{{- if hasKey $object "Error" }}
{{- fail (printf "%s: %s" $path $object.Error) }}
{{- end }}
{{- if not $object.rules }}
{{- fail (printf "%s: no rules (is it missing from the chart?)" $path) }}
{{- end }}
{{- toYaml $object }}
{{- end }}

{{- define "berth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "berth.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "berth.labels" -}}
app.kubernetes.io/name: {{ include "berth.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "berth.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
The chart's own ServiceAccount (fullname unless named), or with serviceAccount.create=false an
existing one: serviceAccount.name, else the namespace's "default".
*/}}
{{- define "berth.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "berth.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The leader election Lease's name. Unique per release by default (namespace and release name), so two
releases never share, or fight over, one Lease. It does NOT stop two releases from both being active:
see leaderElection.id in values.yaml.
*/}}
{{- define "berth.leaseName" -}}
{{- default (printf "berth-manager-%s-%s" .Release.Namespace .Release.Name) .Values.leaderElection.id | trunc 253 | trimSuffix "-" -}}
{{- end -}}

{{- define "berth.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}
{{- end -}}

{{/*
berth.controllers renders --controllers: "*" (every default-on controller, so one that a newer
berth-manager adds stays on) followed by "name" or "-name" per .Values.controllers entry, in key
order. A non-boolean `enabled` fails the render rather than being read as false.
*/}}
{{- define "berth.controllers" -}}
{{- $items := list "*" -}}
{{- range $name, $controller := .Values.controllers -}}
{{- if not (kindIs "bool" $controller.enabled) -}}
{{- fail (printf "controllers.%s.enabled must be true or false, got %v" $name $controller.enabled) -}}
{{- end -}}
{{- $items = append $items (ternary $name (printf "-%s" $name) $controller.enabled) -}}
{{- end -}}
{{- join "," $items -}}
{{- end -}}

{{/*
berth.validate fails the render on values the schema cannot relate to each other.
*/}}
{{- define "berth.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) -}}
{{- fail (printf "replicaCount=%v needs leaderElection.enabled=true: without a leader every replica would schedule and reconcile at once" .Values.replicaCount) -}}
{{- end -}}
{{- end -}}

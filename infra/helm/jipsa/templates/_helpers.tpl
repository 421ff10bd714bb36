{{/* Names and labels shared by every object of the release. */}}

{{- define "jipsa.labels" -}}
app.kubernetes.io/name: jipsa
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{- define "jipsa.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The Secret holding DATABASE_URL and NATS_URL: the operator's, or the one this chart makes. */}}
{{- define "jipsa.secretName" -}}
{{ .Values.servers.existingSecret | default (printf "%s-servers" .Release.Name) }}
{{- end }}

{{- define "jipsa.serverEnv" -}}
- name: DATABASE_URL
  valueFrom: {secretKeyRef: {name: {{ include "jipsa.secretName" . }}, key: DATABASE_URL}}
- name: NATS_URL
  valueFrom: {secretKeyRef: {name: {{ include "jipsa.secretName" . }}, key: NATS_URL}}
{{- end }}

{{/* The Secret holding the operator's token, when there is one: the operator's, or the chart's. */}}
{{- define "jipsa.operatorSecretName" -}}
{{ .Values.operator.existingSecret | default (ternary (printf "%s-operator" .Release.Name) "" (ne .Values.operator.token "")) }}
{{- end }}

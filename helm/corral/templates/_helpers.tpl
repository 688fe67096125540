{{/*
Names, labels and the pieces several templates share.
*/}}

{{- define "corral.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's base name: "corral" for a release named corral, else RELEASE-corral. */}}
{{- define "corral.fullname" -}}
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

{{- define "corral.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "corral.labels" -}}
helm.sh/chart: {{ include "corral.chart" . }}
app.kubernetes.io/name: {{ include "corral.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: corral
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: include "corral.selectorLabels" (list . "gateway"). */}}
{{- define "corral.selectorLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ include "corral.name" $ }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/* All labels of one component's objects. */}}
{{- define "corral.componentLabels" -}}
{{ include "corral.labels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "corral.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "corral.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* An image reference: include "corral.image" (list . .Values.image). The tag defaults to appVersion. */}}
{{- define "corral.image" -}}
{{- $ := index . 0 -}}
{{- $img := index . 1 -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $img.repository $img.digest -}}
{{- else -}}
{{- printf "%s:%s" $img.repository (default $.Chart.AppVersion $img.tag) -}}
{{- end -}}
{{- end -}}

{{/* Where the bundled NATS lives. */}}
{{- define "corral.nats.fullname" -}}
{{- printf "%s-nats" (include "corral.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "corral.nats.host" -}}
{{- printf "%s.%s.svc.%s" (include "corral.nats.fullname" .) .Release.Namespace .Values.clusterDomain -}}
{{- end -}}

{{/* The Secret that holds the bundled NATS's user and password. */}}
{{- define "corral.nats.authSecret" -}}
{{- default (printf "%s-auth" (include "corral.nats.fullname" .)) .Values.nats.bundled.auth.existingSecret -}}
{{- end -}}

{{/* JetStream replicas of Corral's buckets and stream: the cluster's size, at most 3. */}}
{{- define "corral.nats.storeReplicas" -}}
{{- if .Values.nats.storeReplicas -}}
{{- .Values.nats.storeReplicas -}}
{{- else if .Values.nats.bundled.enabled -}}
{{- min 3 .Values.nats.bundled.replicas -}}
{{- else -}}
0
{{- end -}}
{{- end -}}

{{/*
The environment and volumes by which a corral process reaches NATS: CORRAL_NATS_URL (with the
bundled NATS's user and password from its Secret, expanded by the kubelet, never in the pod
spec), CORRAL_NATS_CREDS and the TLS files of an external NATS.
*/}}
{{- define "corral.nats.env" -}}
{{- if .Values.nats.bundled.enabled }}
{{- if .Values.nats.bundled.auth.enabled }}
- name: NATS_USER
  valueFrom:
    secretKeyRef:
      name: {{ include "corral.nats.authSecret" . }}
      key: {{ .Values.nats.bundled.auth.userKey }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "corral.nats.authSecret" . }}
      key: {{ .Values.nats.bundled.auth.passwordKey }}
- name: CORRAL_NATS_URL
  value: "nats://$(NATS_USER):$(NATS_PASSWORD)@{{ include "corral.nats.host" . }}:{{ .Values.nats.bundled.ports.client }}"
{{- else }}
- name: CORRAL_NATS_URL
  value: "nats://{{ include "corral.nats.host" . }}:{{ .Values.nats.bundled.ports.client }}"
{{- end }}
{{- else }}
- name: CORRAL_NATS_URL
  value: {{ required "nats.external.url is required when nats.bundled.enabled is false (e.g. nats://nats.nats.svc:4222)" .Values.nats.external.url | quote }}
{{- if .Values.nats.external.credentials.existingSecret }}
- name: CORRAL_NATS_CREDS
  value: /etc/corral/nats-creds/{{ .Values.nats.external.credentials.key }}
{{- end }}
{{- if .Values.nats.external.tls.existingSecret }}
- name: CORRAL_NATS_TLS_CA
  value: /etc/corral/nats-tls/{{ .Values.nats.external.tls.caKey }}
{{- if .Values.nats.external.tls.clientCert }}
- name: CORRAL_NATS_TLS_CERT
  value: /etc/corral/nats-tls/{{ .Values.nats.external.tls.certKey }}
- name: CORRAL_NATS_TLS_KEY
  value: /etc/corral/nats-tls/{{ .Values.nats.external.tls.keyKey }}
{{- end }}
{{- end }}
{{- end }}
{{- $replicas := include "corral.nats.storeReplicas" . | int }}
{{- if gt $replicas 0 }}
- name: CORRAL_NATS_REPLICAS
  value: {{ $replicas | quote }}
{{- end }}
{{- end -}}

{{- define "corral.nats.volumeMounts" -}}
{{- if not .Values.nats.bundled.enabled }}
{{- if .Values.nats.external.credentials.existingSecret }}
- name: nats-creds
  mountPath: /etc/corral/nats-creds
  readOnly: true
{{- end }}
{{- if .Values.nats.external.tls.existingSecret }}
- name: nats-tls
  mountPath: /etc/corral/nats-tls
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{- define "corral.nats.volumes" -}}
{{- if not .Values.nats.bundled.enabled }}
{{- with .Values.nats.external.credentials.existingSecret }}
- name: nats-creds
  secret:
    secretName: {{ . }}
    defaultMode: 0440
{{- end }}
{{- with .Values.nats.external.tls.existingSecret }}
- name: nats-tls
  secret:
    secretName: {{ . }}
    defaultMode: 0440
{{- end }}
{{- end }}
{{- end -}}

{{/* The auth policy: which Secret holds it, and under which key. "" with auth.insecureNoAuth. */}}
{{- define "corral.auth.policySecret" -}}
{{- if .Values.auth.insecureNoAuth -}}
{{- else if .Values.auth.policy.existingSecret -}}
{{- .Values.auth.policy.existingSecret -}}
{{- else -}}
{{- printf "%s-auth-policy" (include "corral.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* Whether the chart makes an "admin" principal with a generated token (no policy given). */}}
{{- define "corral.auth.generatedAdmin" -}}
{{- if and (not .Values.auth.insecureNoAuth) (not .Values.auth.policy.existingSecret) (empty .Values.auth.policy.principals) -}}
true
{{- end -}}
{{- end -}}

{{- define "corral.auth.adminSecret" -}}
{{- printf "%s-admin-token" (include "corral.fullname" .) -}}
{{- end -}}

{{/* The bundled NATS servers' configuration file. */}}
{{- define "corral.nats.conf" -}}
{{- $n := .Values.nats.bundled -}}
{{- $name := include "corral.nats.fullname" . -}}
# $SERVER_NAME and the credentials come from the environment (pod name, Secret).
server_name: $SERVER_NAME
listen: 0.0.0.0:{{ $n.ports.client }}
http: 0.0.0.0:{{ $n.ports.monitor }}
pid_file: /var/run/nats/nats.pid
lame_duck_duration: 30s
lame_duck_grace_period: 10s
jetstream {
  store_dir: /data
  max_memory_store: {{ $n.jetstream.maxMemoryStore }}
  {{- with $n.jetstream.maxFileStore }}
  max_file_store: {{ . }}
  {{- end }}
}
{{- if gt (int $n.replicas) 1 }}
cluster {
  name: {{ $n.clusterName }}
  listen: 0.0.0.0:{{ $n.ports.cluster }}
  routes: [
    {{- range $i := until (int $n.replicas) }}
    nats://{{ $name }}-{{ $i }}.{{ $name }}-headless.{{ $.Release.Namespace }}.svc.{{ $.Values.clusterDomain }}:{{ $n.ports.cluster }}
    {{- end }}
  ]
}
{{- end }}
{{- if $n.auth.enabled }}
authorization {
  user: $NATS_USER
  password: $NATS_PASSWORD
}
{{- end }}
{{- end -}}

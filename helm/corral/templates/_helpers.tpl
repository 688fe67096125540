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

{{/* The Secret that holds the bundled NATS's passwords, one key per role. */}}
{{- define "corral.nats.authSecret" -}}
{{- default (printf "%s-auth" (include "corral.nats.fullname" .)) .Values.nats.bundled.auth.existingSecret -}}
{{- end -}}

{{/*
The NATS users of the bundled NATS, one per role, with the subject permissions of
broker.PermissionsFor (a node user shared by every node): files/nats-permissions.json, which
`make chart-assets` writes from broker/auth.go and a test compares with it. As JSON:
{"users": [{"role", "user", "permissions"}], "leaf": {"user", "permissions", "local"}}: the
leaf user every edge site of a hub connects as (broker.LeafPermissions), and the subjects a
site's link never carries (broker.LeafLocal).
*/}}
{{- define "corral.nats.permissions" -}}
{{- $f := .Files.Get "files/nats-permissions.json" -}}
{{- if not $f -}}
{{- fail "files/nats-permissions.json is missing from the chart: run make chart-assets" -}}
{{- end -}}
{{- $f -}}
{{- end -}}

{{/*
The bundled NATS's users as JSON ({"users": [...]}, entries of files/nats-permissions.json):
every role's, but the vision workers' only with vision.enabled, so that a Secret of one's own
(nats.bundled.auth.existingSecret) needs the key vision only when the chart runs the workers.
*/}}
{{- define "corral.nats.serverUsers" -}}
{{- $users := list -}}
{{- range (include "corral.nats.permissions" . | fromJson).users -}}
{{- if or (ne .role "vision") $.Values.vision.enabled -}}
{{- $users = append $users . -}}
{{- end -}}
{{- end -}}
{{- dict "users" $users | toJson -}}
{{- end -}}

{{/*
How one Corral component reaches NATS with a user and password: include "corral.nats.user"
(list . "gateway") gives "USER SECRET KEY" (empty when it has none): the bundled NATS's user of
the role, or the external NATS's from nats.external.auth.
*/}}
{{- define "corral.nats.user" -}}
{{- $ := index . 0 -}}
{{- $role := index . 1 -}}
{{- if $.Values.nats.bundled.enabled -}}
{{- if $.Values.nats.bundled.auth.enabled -}}
{{- range (include "corral.nats.permissions" $ | fromJson).users -}}
{{- if eq .role $role -}}
{{- printf "%s %s %s" .user (include "corral.nats.authSecret" $) .role -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- else -}}
{{- $a := $.Values.nats.external.auth -}}
{{- if $a.existingSecret -}}
{{- $user := $a.gatewayUser -}}
{{- if eq $role "node" }}{{ $user = $a.nodeUser }}{{ else if eq $role "vision" }}{{ $user = $a.visionUser }}{{ end -}}
{{- printf "%s %s %s" $user $a.existingSecret $role -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The key of an external NATS's credentials file for a role: include "corral.nats.credsKey" (list . "node"). */}}
{{- define "corral.nats.credsKey" -}}
{{- $ := index . 0 -}}
{{- $c := $.Values.nats.external.credentials -}}
{{- if and (eq (index . 1) "node") $c.nodeKey -}}
{{- $c.nodeKey -}}
{{- else if and (eq (index . 1) "vision") $c.visionKey -}}
{{- $c.visionKey -}}
{{- else -}}
{{- $c.key -}}
{{- end -}}
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
The environment and volumes by which a corral process reaches NATS: include "corral.nats.env"
(list . "gateway"). CORRAL_NATS_URL (never with credentials in it), the role's NATS user
(CORRAL_NATS_USER) with its password in a file from the Secret (CORRAL_NATS_PASSWORD_FILE, the
Secret's one key of that role mounted, nothing else), CORRAL_NATS_CREDS and the TLS files of an
external NATS. CORRAL_NATS_REPLICAS: the gateways give the stores these replicas; a node, which
may start first, creates the missing stores with them and changes none (its user may not).
*/}}
{{- define "corral.nats.env" -}}
{{- $ := index . 0 -}}
{{- $role := index . 1 -}}
{{- if and (not $.Values.nats.bundled.enabled) $.Values.nats.external.auth.existingSecret $.Values.nats.external.credentials.existingSecret -}}
{{- fail "nats.external.auth.existingSecret and nats.external.credentials.existingSecret are both set: give Corral either passwords or a credentials file" -}}
{{- end -}}
{{- if $.Values.nats.bundled.enabled }}
- name: CORRAL_NATS_URL
  value: "nats://{{ include "corral.nats.host" $ }}:{{ $.Values.nats.bundled.ports.client }}"
{{- else }}
- name: CORRAL_NATS_URL
  value: {{ required "nats.external.url is required when nats.bundled.enabled is false (e.g. nats://nats.nats.svc:4222)" $.Values.nats.external.url | quote }}
{{- if $.Values.nats.external.credentials.existingSecret }}
- name: CORRAL_NATS_CREDS
  value: /etc/corral/nats-creds/{{ include "corral.nats.credsKey" (list $ $role) }}
{{- end }}
{{- if $.Values.nats.external.tls.existingSecret }}
- name: CORRAL_NATS_TLS_CA
  value: /etc/corral/nats-tls/{{ $.Values.nats.external.tls.caKey }}
{{- if $.Values.nats.external.tls.clientCert }}
- name: CORRAL_NATS_TLS_CERT
  value: /etc/corral/nats-tls/{{ $.Values.nats.external.tls.certKey }}
- name: CORRAL_NATS_TLS_KEY
  value: /etc/corral/nats-tls/{{ $.Values.nats.external.tls.keyKey }}
{{- end }}
{{- end }}
{{- end }}
{{- with include "corral.nats.user" (list $ $role) }}
- name: CORRAL_NATS_USER
  value: {{ first (splitList " " .) | quote }}
- name: CORRAL_NATS_PASSWORD_FILE
  value: /etc/corral/nats-auth/password
{{- end }}
{{- $replicas := include "corral.nats.storeReplicas" $ | int }}
{{- if gt $replicas 0 }}
- name: CORRAL_NATS_REPLICAS
  value: {{ $replicas | quote }}
{{- end }}
{{- end -}}

{{/*
The stores' sizes (nats.storeSizes) as flags of corral gateway and corral node: a node that
starts first creates the missing stores with its own sizes, so both are given the same.
*/}}
{{- define "corral.stores.args" -}}
{{- with .Values.nats.storeSizes.events }}
- {{ printf "--events-max-bytes=%s" . | quote }}
{{- end }}
{{- with .Values.nats.storeSizes.screenshots }}
- {{ printf "--screenshots-max-bytes=%s" . | quote }}
{{- end }}
{{- with .Values.nats.storeSizes.sessions }}
- {{ printf "--sessions-max-bytes=%s" . | quote }}
{{- end }}
{{- end -}}

{{- define "corral.nats.volumeMounts" -}}
{{- $ := index . 0 -}}
{{- $role := index . 1 -}}
{{- if include "corral.nats.user" (list $ $role) }}
- name: nats-auth
  mountPath: /etc/corral/nats-auth
  readOnly: true
{{- end }}
{{- if not $.Values.nats.bundled.enabled }}
{{- if $.Values.nats.external.credentials.existingSecret }}
- name: nats-creds
  mountPath: /etc/corral/nats-creds
  readOnly: true
{{- end }}
{{- if $.Values.nats.external.tls.existingSecret }}
- name: nats-tls
  mountPath: /etc/corral/nats-tls
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{- define "corral.nats.volumes" -}}
{{- $ := index . 0 -}}
{{- $role := index . 1 -}}
{{- with include "corral.nats.user" (list $ $role) }}
{{- $u := splitList " " . }}
# Only this role's password: a node pod cannot read the gateway's or the admin's.
- name: nats-auth
  secret:
    secretName: {{ index $u 1 }}
    defaultMode: 0440
    items:
      - key: {{ index $u 2 }}
        path: password
{{- end }}
{{- if not $.Values.nats.bundled.enabled }}
{{- with $.Values.nats.external.credentials.existingSecret }}
{{- $key := include "corral.nats.credsKey" (list $ $role) }}
- name: nats-creds
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      - key: {{ $key }}
        path: {{ $key }}
{{- end }}
{{- with $.Values.nats.external.tls.existingSecret }}
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
# Vision requests carry up to two 8 MiB images, base64 (broker/embedded.MaxPayload).
max_payload: 24MB
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
  {{- with .Values.site.name }}
  # An edge site's own domain: its streams and buckets work while the uplink is down.
  domain: {{ . }}
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
# One user per role (vision's only with the vision workers), with the subject permissions of
# broker/auth.go (files/nats-permissions.json); the passwords come from the Secret through the
# environment (NATS_PASSWORD_<ROLE>).
authorization {
  users = [
    {{- range (include "corral.nats.serverUsers" . | fromJson).users }}
    {user: {{ .user | quote }}, password: $NATS_PASSWORD_{{ upper .role }}, permissions: {{ toRawJson .permissions }}}
    {{- end }}
    {{- if .Values.hub.sites }}
    {{- with (include "corral.nats.permissions" . | fromJson).leaf }}
    # Every edge site's server connects as this user, as a leaf node only (broker.LeafPermissions).
    {user: {{ .user | quote }}, password: $NATS_PASSWORD_LEAF, permissions: {{ toRawJson .permissions }}, allowed_connection_types: ["LEAFNODE"]}
    {{- end }}
    {{- end }}
  ]
}
{{- end }}
{{- if .Values.hub.sites }}
# The edge sites ({{ join ", " .Values.hub.sites }}) connect here as leaf nodes.
leafnodes {
  port: {{ .Values.hub.leafnodes.port }}
  # Sites keep the address they were given (the leaf Service), not a pod's own.
  no_advertise: true
}
{{- end }}
{{- with .Values.site.name }}
{{- $local := (include "corral.nats.permissions" $ | fromJson).leaf.local }}
# Edge site {{ . }}: a leaf node of the hub. What both sides store themselves never crosses.
leafnodes {
  remotes = [
    {
      urls: [{{ range $i, $u := $.Values.site.hub.urls }}{{ if $i }}, {{ end }}$NATS_LEAF_URL_{{ $i }}{{ end }}]
      deny_imports: {{ toRawJson $local }}
      deny_exports: {{ toRawJson $local }}
      {{- if $.Values.site.hub.tls.existingSecret }}
      tls {
        ca_file: /etc/nats-leaf-tls/{{ $.Values.site.hub.tls.caKey }}
      }
      {{- end }}
    }
  ]
}
{{- end }}
{{- end -}}

{{/*
The environment of a NATS server of an edge site or a hub: the leaf user's password (a hub's,
from the auth Secret), or each hub URL with the site's credentials in it (a site's:
Kubernetes puts the password, from its Secret, into the URL).
*/}}
{{- define "corral.nats.leafEnv" -}}
{{- if and .Values.hub.sites .Values.nats.bundled.auth.enabled }}
- name: NATS_PASSWORD_LEAF
  valueFrom:
    secretKeyRef:
      name: {{ include "corral.nats.authSecret" . }}
      key: leaf
{{- end }}
{{- with .Values.site.name }}
{{- $h := $.Values.site.hub }}
{{- if $h.existingSecret }}
- name: NATS_LEAF_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $h.existingSecret }}
      key: {{ $h.passwordKey }}
{{- end }}
{{- range $i, $u := $h.urls }}
- name: NATS_LEAF_URL_{{ $i }}
  value: {{ if $h.existingSecret }}{{ replace "://" (printf "://%s:$(NATS_LEAF_PASSWORD)@" $h.user) $u | quote }}{{ else }}{{ $u | quote }}{{ end }}
{{- end }}
{{- end }}
{{- end -}}

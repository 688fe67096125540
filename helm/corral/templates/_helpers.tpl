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
The hub's edge sites (hub.sites) as JSON, {"sites": [{"name", "nodes", "user", "key", "env"}]},
checked: a plain name is a site that connects as the leaf user shared by every site ("leaf",
nodes empty); {name, nodes} a site with a leaf user of its own, leaf-<name> (its password under
that key of the NATS auth Secret, in the server's environment as env), that takes requests for,
and speaks as, those nodes only, as corral nats-auth --site NAME=NODE,... makes it. Each
refusal fails the render naming hub.sites[i]: a name or node of other characters, a site given
twice, a site object without nodes, a node given twice (a slip: the list is the site's whole
scope) or at two sites, an id holding a stand-in of files/nats-site-permissions.json (which
corral.nats.leafUsers replaces).
*/}}
{{- define "corral.hub.sites" -}}
{{- $id := "^[A-Za-z0-9_-]{1,64}$" -}}
{{- $sites := list -}}
{{- $seen := dict -}}
{{- $at := dict -}}
{{- range $i, $s := .Values.hub.sites -}}
{{- $site := dict "name" "" "nodes" list "user" "leaf" "key" "leaf" "env" "NATS_PASSWORD_LEAF" -}}
{{- if kindIs "string" $s -}}
{{- $_ := set $site "name" $s -}}
{{- else -}}
{{- $_ := set $site "name" (toString $s.name) -}}
{{- end -}}
{{- if not (regexMatch $id $site.name) -}}
{{- fail (printf "hub.sites[%d]: site %q: use letters, digits, '-' and '_' (at most 64: it is the site's JetStream domain)" $i $site.name) -}}
{{- end -}}
{{- if hasKey $seen $site.name -}}
{{- fail (printf "hub.sites[%d]: site %s is given twice: give each site once" $i $site.name) -}}
{{- end -}}
{{- $_ := set $seen $site.name true -}}
{{- if not (kindIs "string" $s) -}}
{{- if not $s.nodes -}}
{{- fail (printf "hub.sites[%d] (%s): name the site's nodes, {name: %s, nodes: [NODE, ...]}, or give the site as a plain name for the leaf user shared by every site" $i $site.name $site.name) -}}
{{- end -}}
{{- range $n := $s.nodes -}}
{{- if not (regexMatch $id (toString $n)) -}}
{{- fail (printf "hub.sites[%d] (%s): node %q: use letters, digits, '-' and '_' (a node's --node-id, at most 64)" $i $site.name (toString $n)) -}}
{{- end -}}
{{- with index $at (toString $n) -}}
{{- if eq . $site.name -}}
{{- fail (printf "hub.sites[%d] (%s): node %s is given twice: give each node once" $i $site.name (toString $n)) -}}
{{- end -}}
{{- fail (printf "hub.sites[%d] (%s): node %s is at site %s too: a node id is unique in the farm" $i $site.name (toString $n) .) -}}
{{- end -}}
{{- $_ := set $at (toString $n) $site.name -}}
{{- $_ := set $site "nodes" (append $site.nodes (toString $n)) -}}
{{- end -}}
{{- with $.Files.Get "files/nats-site-permissions.json" -}}
{{- $t := fromJson . -}}
{{- range $id := prepend $site.nodes $site.name -}}
{{- if or (contains $t.site $id) (contains $t.node $id) -}}
{{- fail (printf "hub.sites[%d] (%s): %s holds %s or %s, the stand-ins the chart's leaf permissions are written with: choose another id" $i $site.name $id $t.site $t.node) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $_ := set $site "user" (printf "leaf-%s" $site.name) -}}
{{- $_ := set $site "key" (printf "leaf-%s" $site.name) -}}
{{- $_ := set $site "env" (printf "NATS_PASSWORD_LEAF_SITE_%d" $i) -}}
{{- end -}}
{{- $sites = append $sites $site -}}
{{- end -}}
{{- dict "sites" $sites | toJson -}}
{{- end -}}

{{/* The hub's edge sites' names, comma-separated: "a,b". */}}
{{- define "corral.hub.siteNames" -}}
{{- $names := list -}}
{{- range (include "corral.hub.sites" . | fromJson).sites }}{{ $names = append $names .name }}{{ end -}}
{{- join "," $names -}}
{{- end -}}

{{/*
The leaf users of the bundled NATS of a hub as JSON ({"users": [{"user", "key", "env",
"permissions"}]}): the one shared by every site given as a plain name (broker.LeafPermissions
without nodes: any node's requests), and one per site with nodes, limited to them.
files/nats-site-permissions.json holds broker.LeafPermissions of a stand-in site and node
(`make chart-assets`): a subject naming the node is repeated for each of the site's nodes, in
their order, before the others, as LeafPermissions lists them; the site's name replaces the
stand-in's. helm/corral/sites_chart_test.go holds them equal to corral nats-auth --site's.
*/}}
{{- define "corral.nats.leafUsers" -}}
{{- $users := list -}}
{{- $sites := (include "corral.hub.sites" . | fromJson).sites -}}
{{- range $sites -}}
{{- if not .nodes -}}
{{- $users = append $users (dict "user" .user "key" .key "env" .env "permissions" (include "corral.nats.permissions" $ | fromJson).leaf.permissions) -}}
{{- break -}}
{{- end -}}
{{- end -}}
{{- $f := .Files.Get "files/nats-site-permissions.json" -}}
{{- range $site := $sites -}}
{{- if $site.nodes -}}
{{- if not $f -}}
{{- fail "files/nats-site-permissions.json is missing from the chart: run make chart-assets" -}}
{{- end -}}
{{- $t := $f | fromJson -}}
{{- $perms := dict -}}
{{- range $side := list "publish" "subscribe" -}}
{{- $allow := list -}}
{{- $subjects := (index $t.permissions $side).allow -}}
{{- range $n := $site.nodes -}}
{{- range $subjects -}}
{{- if contains $t.node . -}}
{{- $allow = append $allow (. | replace $t.node $n | replace $t.site $site.name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $subjects -}}
{{- if not (contains $t.node .) -}}
{{- $allow = append $allow (. | replace $t.site $site.name) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $perms $side (dict "allow" $allow) -}}
{{- end -}}
{{- $users = append $users (dict "user" $site.user "key" $site.key "env" $site.env "permissions" $perms) -}}
{{- end -}}
{{- end -}}
{{- dict "users" $users | toJson -}}
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

{{/*
JetStream replicas of Corral's buckets and stream: the cluster's size, at most 3. More replicas
than the bundled cluster has servers would render, and the gateways would then exit at start
(one server: "replicas > 1 not supported in non-clustered mode"), so refuse them here.
*/}}
{{- define "corral.nats.storeReplicas" -}}
{{- if and .Values.nats.bundled.enabled (gt (int .Values.nats.storeReplicas) (int .Values.nats.bundled.replicas)) -}}
{{- fail (printf "nats.storeReplicas is %v but nats.bundled.replicas is %v: a store cannot have more replicas than the bundled NATS has servers (the gateways would exit at start); lower nats.storeReplicas to at most %v, set it to 0 (the cluster's size), or raise nats.bundled.replicas" .Values.nats.storeReplicas .Values.nats.bundled.replicas .Values.nats.bundled.replicas) -}}
{{- end -}}
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
may start first, creates the missing stores with them and changes none (its user may not);
corral vision makes no store and has no --nats-replicas, so its pods do not get it.
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
{{- if and (gt $replicas 0) (has $role (list "gateway" "node")) }}
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
    {{- range (include "corral.nats.leafUsers" . | fromJson).users }}
    {{- if eq .key "leaf" }}
    # Every edge site's server connects as this user, as a leaf node only (broker.LeafPermissions).
    {{- else }}
    # Edge site {{ trimPrefix "leaf-" .user }}'s server, as a leaf node only, for its own nodes (broker.LeafPermissions).
    {{- end }}
    {user: {{ .user | quote }}, password: ${{ .env }}, permissions: {{ toRawJson .permissions }}, allowed_connection_types: ["LEAFNODE"]}
    {{- end }}
  ]
}
{{- end }}
{{- if .Values.hub.sites }}
# The edge sites ({{ include "corral.hub.siteNames" . | replace "," ", " }}) connect here as leaf nodes.
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
{{- range (include "corral.nats.leafUsers" . | fromJson).users }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ include "corral.nats.authSecret" $ }}
      key: {{ .key }}
{{- end }}
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

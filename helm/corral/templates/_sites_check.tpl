{{/*
corral.checkSites fails the render on edge-site values that render but make a site's or a hub's
NATS refuse to start or to connect, naming the value to set: a release that is both; a site
without the bundled NATS (site.* configures it: with an external NATS nothing joins the hub) or
without the hub's URL; a site that would connect as a user the hub's leaf port does not give it
(another site's leaf-NAME, a role's), or with no password while its own NATS has auth (the hub's
refuses a leaf without one); a password key named after another leaf user than the one it
connects as (the docs copy a password under its user's name: the key is missing and the pod
does not start); a hub whose leaf port is one its NATS already listens on (nats-server exits
at start).
*/}}
{{- define "corral.checkSites" -}}
{{- $site := .Values.site -}}
{{- $h := $site.hub -}}
{{- if and $site.name .Values.hub.sites -}}
{{- fail "site.name and hub.sites are both set: a release is an edge site or its hub, not both" -}}
{{- end -}}
{{- with $site.name -}}
{{- if not $.Values.nats.bundled.enabled -}}
{{- fail (printf "site.name is %q but nats.bundled.enabled is false: site.* makes the bundled NATS a leaf node of the hub, and an external NATS joins no hub from this chart; turn the bundled NATS on, or make your NATS a leaf node of the hub in JetStream domain %s yourself and leave site.name empty" . .) -}}
{{- end -}}
{{- if not $h.urls -}}
{{- fail (printf "site.name is %q but site.hub.urls is empty: name the hub's leaf URL, e.g. [nats-leaf://hub.example.com:7422]" .) -}}
{{- end -}}
{{- $own := printf "leaf-%s" . -}}
{{- $users := printf "%s (the hub gives site %s with its nodes) or leaf (the hub gives it by name alone)" $own . -}}
{{- if not (has $h.user (list "leaf" $own)) -}}
{{- if hasPrefix "leaf-" $h.user -}}
{{- fail (printf "site.hub.user is %q, the leaf user of the hub's site %s, but this release is site %s: the hub lets that user act for %s's nodes only, so this site's never show; set site.hub.user (and site.hub.passwordKey) to %s" $h.user (trimPrefix "leaf-" $h.user) . (trimPrefix "leaf-" $h.user) $users) -}}
{{- end -}}
{{- fail (printf "site.hub.user is %q: the hub's leaf port takes its leaf users only, and refuses the others; set site.hub.user (and site.hub.passwordKey) to %s" $h.user $users) -}}
{{- end -}}
{{- if and (not $h.existingSecret) $.Values.nats.bundled.auth.enabled -}}
{{- fail (printf "site.name is %q but site.hub.existingSecret is empty: the site's NATS would connect to the hub with no password, and a hub with NATS auth refuses it; copy the hub's password of %s (its NATS auth Secret's key %s) into a Secret here and name it in site.hub.existingSecret (docs/helm.md, Edge sites), or, for a hub without NATS auth, set nats.bundled.auth.enabled=false here too" . $h.user $h.user) -}}
{{- end -}}
{{- if and $h.existingSecret (or (eq $h.passwordKey "leaf") (hasPrefix "leaf-" $h.passwordKey)) (ne $h.passwordKey $h.user) -}}
{{- fail (printf "site.hub.passwordKey is %q, the key of the hub's user %s, but site.hub.user is %s: set both to the user this site connects as, %s, its password copied into %s under that key (docs/helm.md, Edge sites)" $h.passwordKey $h.passwordKey $h.user $users $h.existingSecret) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.hub.sites .Values.nats.bundled.enabled -}}
{{- $p := .Values.nats.bundled.ports -}}
{{- $leaf := int .Values.hub.leafnodes.port -}}
{{- range $name := list "client" "cluster" "monitor" -}}
{{- if eq $leaf (int (index $p $name)) -}}
{{- fail (printf "hub.leafnodes.port is %d, as nats.bundled.ports.%s: the NATS server cannot listen on one port twice and exits at start; give hub.leafnodes.port another port" $leaf $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

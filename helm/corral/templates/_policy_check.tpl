{{/*
corral.auth.checkPrincipals fails the render on auth.policy.principals that every gateway would
refuse at start, and exit (mcp/policy.go; corral gateway --check-config says the same), where
the schema cannot see it: the name "anonymous", a name given twice, two principals with the
same token (token_sha256 in any case, or a token and its hash), a tool or profile the gateways
do not know (files/policy-tools.json, kept equal to the loader's by
policy_refusals_chart_test.go), a token_file that is not a key of auth.tokens.existingSecret's
mount (/etc/corral/tokens/KEY: nothing else is mounted; the loader reads a relative one next
to the policy file, where the chart's policy Secret holds no token). A token_file's token is
the gateway's to read. No refusal quotes a token.
*/}}
{{- define "corral.auth.checkPrincipals" -}}
{{- $names := .Files.Get "files/policy-tools.json" | fromJson -}}
{{- if not $names.tools -}}
{{- fail "files/policy-tools.json is missing from the chart: run go test ./helm/corral -run TestChartPolicyToolsFile -update-policy-tools" -}}
{{- end -}}
{{- $known := concat $names.profiles $names.tools -}}
{{- $byName := dict -}}
{{- $byToken := dict -}}
{{- range $i, $p := .Values.auth.policy.principals -}}
{{- $at := printf "auth.policy.principals[%d] (%q)" $i $p.name -}}
{{- if eq $p.name "anonymous" -}}
{{- fail (printf "%s: \"anonymous\" names every caller of a gateway without a policy, and every gateway would refuse this policy and exit at start; choose another name" $at) -}}
{{- end -}}
{{- with index $byName $p.name -}}
{{- fail (printf "auth.policy.principals[%s] and [%d] are both named %q: names must be unique (every gateway would exit at start)" . $i $p.name) -}}
{{- end -}}
{{- $_ := set $byName $p.name (toString $i) -}}
{{- $token := "" -}}
{{- if $p.token_sha256 -}}
{{- $token = $p.token_sha256 | trim | lower -}}
{{- else if $p.token -}}
{{- $token = sha256sum $p.token -}}
{{- end -}}
{{- if $token -}}
{{- with index $byToken $token -}}
{{- fail (printf "%s has the token of %s: give each principal its own, or the gateways cannot tell them apart (every gateway would exit at start)" $at .) -}}
{{- end -}}
{{- $_ := set $byToken $token (printf "[%d] (%q)" $i $p.name) -}}
{{- end -}}
{{- with $p.token_file -}}
{{- if not $.Values.auth.tokens.existingSecret -}}
{{- fail (printf "%s: token_file %q: no Secret of token files is mounted; set auth.tokens.existingSecret to the Secret holding it (mounted at /etc/corral/tokens), or give token_sha256 (every gateway would exit at start)" $at .) -}}
{{- end -}}
{{- if ne (dir (clean .)) "/etc/corral/tokens" -}}
{{- fail (printf "%s: token_file %q is not in the token files' mount: use /etc/corral/tokens/KEY, KEY a key of auth.tokens.existingSecret (a relative path is read next to the policy file, where no token is; every gateway would exit at start)" $at .) -}}
{{- end -}}
{{- end -}}
{{- range $p.tools -}}
{{- if not (has . $known) -}}
{{- fail (printf "%s: tools: unknown tool or profile %q; give tool names from tools/list or a profile: %s (every gateway would exit at start)" $at . (join ", " $names.profiles)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
corral.gateway.checkTools fails the render on a gateway.tools that corral gateway --tools
refuses, so every gateway would exit at start (mcp.SelectTools): "all" or empty, one profile of
flag_profiles alone, or tool names from tools/list separated by commas (files/policy-tools.json,
kept equal to the gateway's by policy_refusals_chart_test.go). readonly is a profile of a
principal's tools only, and a profile in a list is no tool.
*/}}
{{- define "corral.gateway.checkTools" -}}
{{- $names := .Files.Get "files/policy-tools.json" | fromJson -}}
{{- if not $names.flag_profiles -}}
{{- fail "files/policy-tools.json has no flag_profiles: run make chart-assets (go test ./helm/corral -run TestChartPolicyToolsFile -update-policy-tools)" -}}
{{- end -}}
{{- $spec := toString .Values.gateway.tools | trim -}}
{{- if not (or (eq $spec "") (has $spec $names.flag_profiles)) -}}
{{- $given := list -}}
{{- range splitList "," $spec -}}
{{- $n := trim . -}}
{{- if and $n (not (has $n $names.tools)) -}}
{{- $hint := "" -}}
{{- if has $n $names.flag_profiles -}}
{{- $hint = printf "; a profile stands alone: gateway.tools=%s" $n -}}
{{- else if has $n $names.profiles -}}
{{- $hint = printf "; %s is a profile of a principal's tools (auth.policy.principals[].tools), not of --tools" $n -}}
{{- end -}}
{{- fail (printf "gateway.tools %q: unknown tool %q for corral gateway --tools; give a profile (%s) or tool names from tools/list, NAME,NAME,...%s (every gateway would exit at start)" $spec $n (join ", " $names.flag_profiles) $hint) -}}
{{- end -}}
{{- if $n -}}
{{- $given = append $given $n -}}
{{- end -}}
{{- end -}}
{{- if not $given -}}
{{- fail (printf "gateway.tools %q names no tool; give a profile (%s) or tool names from tools/list, NAME,NAME,... (every gateway would exit at start)" $spec (join ", " $names.flag_profiles)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

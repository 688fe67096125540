{{/*
corral.checkAutoscaling fails the render on an autoscaling block whose minReplicas is above its
maxReplicas: the API server refuses that HorizontalPodAutoscaler, and the schema cannot compare
two values. Called with (list "gateway.autoscaling" .Values.gateway.autoscaling).
*/}}
{{- define "corral.checkAutoscaling" -}}
{{- $at := index . 0 -}}
{{- $a := index . 1 -}}
{{- if gt (int $a.minReplicas) (int $a.maxReplicas) -}}
{{- fail (printf "%s.minReplicas (%d) is more than %s.maxReplicas (%d): Kubernetes refuses that HorizontalPodAutoscaler; give minReplicas at most maxReplicas" $at (int $a.minReplicas) $at (int $a.maxReplicas)) -}}
{{- end -}}
{{- end -}}

#!/usr/bin/env bash
# Copies the Grafana dashboards (deploy/grafana/*.json) and the alert rule groups
# (deploy/prometheus/rules.yaml) into the Helm chart (helm/corral/dashboards/, helm/corral/rules/):
# Helm reads only files inside a chart. deploy/ is the source; run this (make chart-assets) after
# changing it and commit both. helm/corral/chart_test.go fails while the copies differ.
# It also writes the bundled NATS's users' permissions (helm/corral/files/nats-permissions.json)
# from broker.PermissionsFor (broker/auth.go), and a scoped edge site's leaf user's
# (helm/corral/files/nats-site-permissions.json) from broker.LeafPermissions (broker/leaf.go);
# helm/corral/nats_chart_auth_test.go and sites_chart_test.go fail while they differ. And the
# names a principal's tools may give (helm/corral/files/policy-tools.json) from the gateway's
# tool catalog and policy loader (mcp): run it after adding a tool (docs/adding-a-tool.md);
# policy_refusals_chart_test.go fails while it differs.
set -euo pipefail
cd "$(dirname "$0")/.."
chart=helm/corral

mkdir -p "$chart/dashboards" "$chart/rules"
shopt -s nullglob
# Mirror: a dashboard removed from deploy/grafana leaves the chart too.
rm -f "$chart"/dashboards/*.json
dashboards=(deploy/grafana/*.json)
for f in "${dashboards[@]}"; do
  cp "$f" "$chart/dashboards/"
done
if [ -f deploy/prometheus/rules.yaml ]; then
  cp deploy/prometheus/rules.yaml "$chart/rules/rules.yaml"
  rules=1
else
  rm -f "$chart/rules/rules.yaml"
  rules=0
fi
# The NATS permissions and the policy's tool names, from the Go source (the tests that check
# them write them).
GOFLAGS="${GOFLAGS:--buildvcs=false}" go test ./helm/corral -count=1 \
  -run '^(TestChartNATSPermissionsFile|TestChartSitePermissionsFile|TestChartPolicyToolsFile)$' \
  -update-nats-permissions -update-policy-tools >/dev/null
echo "chart-assets: ${#dashboards[@]} dashboard(s), $rules rule file(s) copied into $chart; $chart/files/nats-permissions.json and nats-site-permissions.json written from broker/auth.go and broker/leaf.go, policy-tools.json from the gateway's tool catalog (mcp)"

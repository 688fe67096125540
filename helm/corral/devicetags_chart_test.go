package chart_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/corral-farm/corral/nodes"
)

// TestChartPrincipalsHaveDevices: a principal of the values with tags can use a device of the
// chart's nodes: one of its tags is one the nodes give (node.deviceTags, --device-tags) or, with
// simulated devices, sim. docs/helm.md and bundled-nats-with-auth.yaml gave ci tags [pool-a],
// which no device carried, so following them left the CI token with no device.
func TestChartPrincipalsHaveDevices(t *testing.T) {
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			m := render(t, c)
			ds := m.find("DaemonSet", fullname+"-node")
			_, pod, gw := gateway(t, m)
			file, ok := flags(gw)["auth-policy"]
			if ds == nil || !ok {
				return
			}
			secret, key := secretFile(t, pod, gw, file)
			if m.find("Secret", secret) == nil {
				return // a policy of one's own (auth.policy.existingSecret)
			}
			var policy struct {
				Principals []struct {
					Name string   `yaml:"name"`
					Tags []string `yaml:"tags"`
				} `yaml:"principals"`
			}
			if err := yaml.Unmarshal(m.secretData(t, secret, key), &policy); err != nil {
				t.Fatalf("policy in Secret %s: %v", secret, err)
			}
			node := flags(container(t, dig(ds, "spec", "template", "spec").(object), "node"))
			var carried []string
			if tags := node["device-tags"]; tags != "" {
				carried = strings.Split(tags, ",")
			}
			for _, sim := range []string{"sim", "sim-android"} {
				if n, _ := strconv.Atoi(node[sim]); n > 0 && !slices.Contains(carried, "sim") {
					carried = append(carried, "sim")
				}
			}
			for _, p := range policy.Principals {
				if len(p.Tags) > 0 && !slices.ContainsFunc(p.Tags, func(tag string) bool { return slices.Contains(carried, tag) }) {
					t.Errorf("principal %s has tags %v, which no device of the chart's nodes carries (theirs: %v; set node.deviceTags)",
						p.Name, p.Tags, carried)
				}
			}
		})
	}
}

// TestChartNodeDeviceTags: node.deviceTags reach corral node as --device-tags; what corral
// refuses helm refuses first.
func TestChartNodeDeviceTags(t *testing.T) {
	m := render(t, valuesCase{name: "tags", sets: []string{"node.deviceTags={pool-a,lab-2}"}})
	node := container(t, dig(m.must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object), "node")
	if got := flags(node)["device-tags"]; got != "pool-a,lab-2" {
		t.Errorf("--device-tags=%q, want pool-a,lab-2", got)
	}
	if _, ok := flags(container(t, dig(render(t, valuesCase{name: "default"}).must(t, "DaemonSet", fullname+"-node"),
		"spec", "template", "spec").(object), "node"))["device-tags"]; ok {
		t.Error("the defaults give --device-tags")
	}
	// What helm takes corral takes: 64 bytes of two-byte characters.
	long := strings.Repeat("é", 32)
	if got := flags(container(t, dig(render(t, valuesCase{name: "long", sets: []string{"node.deviceTags={" + long + "}"}}).must(t, "DaemonSet", fullname+"-node"),
		"spec", "template", "spec").(object), "node"))["device-tags"]; got != long || nodes.CheckDeviceTags([]string{got}) != nil {
		t.Errorf("--device-tags=%q, want %s, which corral takes (%v)", got, long, nodes.CheckDeviceTags([]string{got}))
	}
	if nodes.CheckDeviceTags([]string{long + "é"}) == nil {
		t.Error("corral takes a 66-byte tag: the chart's byte check is stricter than corral")
	}
	for _, c := range []struct{ set, want string }{
		{"node.deviceTags={sim}", "/node/deviceTags/0"},
		{"node.deviceTags={pool-a,web}", "/node/deviceTags/1"},
		{`node.deviceTags={a\,b}`, "/node/deviceTags/0"},
		{"node.deviceTags={" + strings.Repeat("x", 65) + "}", "/node/deviceTags/0"},
		{"node.deviceTags={a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q}", "/node/deviceTags"},
		// 33 characters, 66 bytes: the schema's maxLength counts characters, corral bytes.
		{"node.deviceTags={" + strings.Repeat("é", 33) + "}", "is 66 bytes long"},
	} {
		_, err := helm(t, append([]string{"template", release, chartDir(t)}, valuesCase{sets: []string{c.set}}.args()...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %s: %v; want an error with %q", c.set, err, c.want)
		}
	}
}

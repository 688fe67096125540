package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// The console's busy test reads a refusal's text as the gateway words it: a device tool's
// (failureText), and acquire_device's, which wraps its node's refusal ("no device matching
// serial=… could be leased: acquire_device on … refused (busy): …"); a serial may hold colons.
func TestRefusedAsBusy(t *testing.T) {
	bob := broker.Holder{Principal: "bob", Client: "agent"}
	lease := &broker.Lease{Holder: bob, ExpiresAt: time.Now().Add(time.Minute), MaxUntil: time.Now().Add(time.Hour)}
	caller := broker.Holder{Principal: "anonymous", Client: "console"}
	refusal := func(tool, serial, code string) string {
		return leaseRefusal(tool, serial, broker.LeaseAnswer{Code: code, Error: "device " + serial + " is held", Lease: lease}, caller)
	}
	acquireOf := func(serial, code string) string {
		return refusalText("acquire_device", code, unleasedPrefix(&acquireArgs{Serial: serial})+strings.TrimSuffix(refusal("acquire_device", serial, code), ".")+".")
	}
	for _, c := range []struct {
		name, tool, serial, msg string
		want                    bool
	}{
		{"a tap on a held device", "tap_xy", "n1-p1", refusal("tap_xy", "n1-p1", broker.CodeBusy), true},
		{"a tap that waited in vain", "tap_xy", "n1-p1", refusal("tap_xy", "n1-p1", broker.CodeWaitExpired), true},
		{"acquire of a held device", "acquire_device", "n1-p1", acquireOf("n1-p1", broker.CodeBusy), true},
		{"acquire of a held device with a colon", "acquire_device", "127.0.0.1:5555", acquireOf("127.0.0.1:5555", broker.CodeBusy), true},
		{"acquire that waited in vain", "acquire_device", "n1-p1", refusal("acquire_device", "n1-p1", broker.CodeWaitExpired), true},
		{"acquire of an unhealthy device", "acquire_device", "n1-p1", acquireOf("n1-p1", broker.CodeUnhealthy), false},
		{"acquire of a draining node's device", "acquire_device", "n1-p1", acquireOf("n1-p1", broker.CodeDraining), false},
		{"acquire refused for another serial", "acquire_device", "n1-p1", acquireOf("n1-p2", broker.CodeBusy), false},
		{"a tap refused as unhealthy", "tap_xy", "n1-p1", refusal("tap_xy", "n1-p1", broker.CodeUnhealthy), false},
		{"another tool's busy", "home", "n1-p1", refusal("tap_xy", "n1-p1", broker.CodeBusy), false},
		{"no serial", "tap_xy", "", refusal("tap_xy", "", broker.CodeBusy), false},
		// The gateway's own busy is shown in its own words ("Agent is already running …").
		{"the gateway's own busy", "run_agent_task", "n1-p1", refusalText("run_agent_task", broker.CodeBusy, alreadyRunning("n1-p1", "run_agent_task", "t_1", time.Now())), false},
		{"the gateway's own busy on a serial with a colon", "run_agent_task", "127.0.0.1:5555", refusalText("run_agent_task", broker.CodeBusy, alreadyRunning("127.0.0.1:5555", "run_agent_task", "", time.Now())), false},
		{"the gateway's own refusal of another code", "tap_xy", "n1-p1", refusalText("tap_xy", broker.CodeBadInput, "x must be between 0 and 1"), false},
	} {
		if got := refusedAsBusy(c.tool, c.serial, c.msg); got != c.want {
			t.Errorf("%s: refusedAsBusy(%q, %q, %q) = %v, want %v", c.name, c.tool, c.serial, c.msg, got, c.want)
		}
	}
}

// The console's denied flag reads a refusal's code past its serial's colons: a node's refusal
// of a --sim-android phone ("tap_xy on 127.0.0.1:5555 refused (denied): …") is denied.
func TestRefusedWithReadsPastASerialsColons(t *testing.T) {
	for _, c := range []struct {
		text, code string
		want       bool
	}{
		{"tap_xy on 127.0.0.1:5555 refused (denied): denied by policy: …", broker.CodeDenied, true},
		{"tap_xy on n1-p1 refused (denied): denied by policy: …", broker.CodeDenied, true},
		{"tap_xy refused (denied): denied by policy: …", broker.CodeDenied, true},
		{"refused (denied): denied by policy: …", broker.CodeDenied, true},
		{"tap_xy on 127.0.0.1:5555 refused (busy): held by bob", broker.CodeDenied, false},
		{"acquire_device refused (busy): no device matching …: acquire_device on n1-p1 refused (denied): …", broker.CodeDenied, false},
		{"no record of task t_1: tap_xy on n1-p1 refused (denied): …", broker.CodeDenied, false},
		{"tap_xy on n1-p1 failed: refused nothing", broker.CodeDenied, false},
	} {
		if got := refusedWith(c.text, c.code); got != c.want {
			t.Errorf("refusedWith(%q, %q) = %v, want %v", c.text, c.code, got, c.want)
		}
	}
}

package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

func unlockSim(t *testing.T, conf string, p *sim.Phone) (tools.UnlockResult, error) {
	t.Helper()
	book, err := tools.ParsePasscodes([]byte(conf))
	if err != nil {
		t.Fatal(err)
	}
	op := tools.DefaultOpsWith(tools.OpsConfig{Passcodes: book})["unlock_phone"]
	out, err := op.Run(context.Background(), &tools.Task{Driver: p, Args: []byte(`{}`)})
	if err != nil {
		return tools.UnlockResult{}, err
	}
	return out.Data.(tools.UnlockResult), nil
}

// A simulated phone unlocks with its own passcode, unconfigured; the "*" default does not
// override what the phone knows, its own entry does.
func TestUnlockPhoneOnTheSimulatedPhone(t *testing.T) {
	p := sim.New("sim-u", sim.Locked(), sim.WithPasscode("8642"))
	res, err := unlockSim(t, `"*": "0000"`, p)
	if err != nil || !res.Unlocked || !res.Verified || !res.PasscodeEntered {
		t.Fatalf("%+v %v", res, err)
	}
	if fg := foregroundOf(t, p); fg != "com.corral.launcher" {
		t.Fatalf("after unlock_phone the phone shows %s", fg)
	}
	log := strings.Join(p.InputLog(), "\n")
	for _, want := range []string{"key WAKEUP", "swipe 540 1919 540 720", `text "8642"`, "key ENTER"} {
		if !strings.Contains(log, want) {
			t.Errorf("input log lacks %q:\n%s", want, log)
		}
	}
	// Not locked: woken only.
	res, err = unlockSim(t, "", p)
	if err != nil || res.PasscodeEntered || !res.Unlocked {
		t.Fatalf("unlocked phone: %+v %v", res, err)
	}
	// Its own entry overrides, wrong here: it stays locked and says so.
	_ = p.PressKey(context.Background(), "POWER")
	_, err = unlockSim(t, `sim-u: "1111"`, p)
	if err == nil || !strings.Contains(err.Error(), "still locked: wrong passcode?") || strings.Contains(err.Error(), "1111") {
		t.Fatalf("wrong passcode: %v", err)
	}
}

func foregroundOf(t *testing.T, p *sim.Phone) string {
	t.Helper()
	pkg, err := p.ForegroundApp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/corral-farm/corral/internal/redact"
	"github.com/corral-farm/corral/nodes/device"
)

// LoginArgs are web_login_none_ui's arguments (HttpRunner seed). On a browser device
// packageName is the site's login endpoint, which takes the other fields as JSON.
type LoginArgs struct {
	PackageName string `json:"packageName" arg:"required,maxLength=2048" desc:"Login endpoint URL" help:"the login endpoint's http(s) URL, e.g. https://shop.example/api/login"`
	PhoneNumber string `json:"phoneNumber,omitempty" arg:"maxLength=64" desc:"Phone number"`
	Captcha     string `json:"captcha,omitempty" arg:"maxLength=64" secret:"true" desc:"Verification code"`
	Password    string `json:"password,omitempty" arg:"maxLength=256" secret:"true" desc:"Password"`
	Behaviour
}

// LoginResult is web_login_none_ui's structured result (HttpRunner seed).
type LoginResult struct {
	Message     string       `json:"message" jsonschema:"What was done"`
	LoginResult LoginOutcome `json:"loginResult" jsonschema:"What the login endpoint answered"`
	Hint        string       `json:"hint,omitempty"`
}

// LoginOutcome is the login endpoint's answer.
type LoginOutcome struct {
	OK     bool `json:"ok" jsonschema:"The endpoint answered 2xx"`
	Status int  `json:"status" jsonschema:"HTTP status"`
	Body   any  `json:"body,omitempty" jsonschema:"The answer (not in the task record): JSON as it came, else its text (at most 4 KB)"`
}

func webLoginNoneUI() Tool {
	return Define[LoginArgs, LoginResult](Tool{Name: "web_login_none_ui",
		Description: "Log in without the UI: a browser device posts the fields as JSON to the login endpoint packageName, from its origin.",
		Timeout:     30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: packageName,
		Needs: []Ability{Need[device.NoUILoginer]("log in without the UI")},
	}, func(ctx context.Context, t *Task, a LoginArgs) (Output, error) {
		fields := map[string]string{}
		for k, v := range map[string]string{"phoneNumber": a.PhoneNumber, "captcha": a.Captcha, "password": a.Password} {
			if v != "" {
				fields[k] = v
			}
		}
		res, err := t.Driver.(device.NoUILoginer).LoginNoUI(ctx, a.PackageName, fields)
		if err != nil {
			return Output{}, err
		}
		text := redact.NewSecrets(redacted, []string{a.Password, a.Captcha}).Hide(res.Body) // an endpoint that echoes them
		out := LoginOutcome{OK: res.Status/100 == 2, Status: res.Status, Body: text}
		var js any
		if json.Unmarshal([]byte(text), &js) == nil {
			out.Body = js
		}
		if !out.OK { // the answer is its caller's, not the record's (loginRecord)
			return Output{}, &UnrecordedError{Err: fmt.Errorf("the login endpoint answered HTTP %d: %s", res.Status, clipRunes(text, 300)),
				Instead: fmt.Sprintf("the login endpoint answered HTTP %d, %d bytes (only its caller reads them)", res.Status, len(text))}
		}
		done := LoginResult{Message: fmt.Sprintf("logged in at %s (HTTP %d)", redact.PageURL(a.PackageName), res.Status), LoginResult: out, Hint: hintAction}
		return Output{Data: done, Record: loginRecord(done, text)}, nil
	})
}

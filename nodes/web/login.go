package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/nodes/device"
)

// loginJS posts the fields as JSON to the endpoint from the page, with the site's cookies,
// and returns the answer's status and the first 4 KB of its body.
const loginJS = `(async (endpoint, fields) => {
  const r = await fetch(endpoint, {method: "POST", credentials: "include",
    headers: {"Content-Type": "application/json", "Accept": "application/json"}, body: JSON.stringify(fields)});
  return {status: r.status, body: (await r.text()).slice(0, 4096)};
})(%s, %s)`

// LoginNoUI logs in without the login page's UI: from a tab on the endpoint's origin (opened
// there first if the front tab is elsewhere), it posts the fields as JSON to the endpoint, so
// the session cookie the site answers with is the browser's from then on.
func (d *Driver) LoginNoUI(ctx context.Context, endpoint string, fields map[string]string) (device.LoginResult, error) {
	u, err := d.pageURL("log in", endpoint, "packageName is the site's login endpoint, an http(s) URL")
	if err != nil {
		return device.LoginResult{}, err
	}
	origin := u.Scheme + "://" + u.Host
	front, err := d.ForegroundApp(ctx)
	if err != nil {
		return device.LoginResult{}, err
	}
	if f, err := url.Parse(front); err != nil || f.Scheme+"://"+f.Host != origin {
		if err := d.navigate(ctx, "log in", origin+"/"); err != nil {
			return device.LoginResult{}, err
		}
	}
	ep, _ := json.Marshal(u.String())
	body, _ := json.Marshal(fields)
	c, done, err := d.tab(ctx)
	if err != nil {
		return device.LoginResult{}, err
	}
	defer done()
	d.reached(stepLogin)
	res, err := chromedp.Run(c, chromedp.Evaluate[device.LoginResult](fmt.Sprintf(loginJS, ep, body), chromedp.EvalAwaitPromise))
	if err != nil && browserDied(c) {
		return device.LoginResult{}, d.diedUnder(ctx, c, "log in", err, errDiedLoggingIn, ", then log in again")
	}
	if err != nil {
		return device.LoginResult{}, d.wrap("log in", err, "is the login endpoint up, and on the page's origin?")
	}
	return res, nil
}

package ios

import (
	"context"
	"fmt"
	"strconv"
)

// Status reports what get_device_status shows of an iPhone: whether it trusts this computer,
// WebDriverAgent's state, whether the screen is locked, and the screen's scale.
func (d *Driver) Status(ctx context.Context) (map[string]string, error) {
	st := map[string]string{"trusted": strconv.FormatBool(d.trusted.Load()), "wda_port": strconv.Itoa(int(d.o.WDAPort))}
	if d.o.Facts.Trusted {
		st["developer_mode"] = strconv.FormatBool(d.o.Facts.DeveloperMode)
	}
	if err := d.sup.health(ctx); err != nil {
		st["wda"] = err.Error()
		return st, nil
	}
	st["wda"] = "ready"
	if locked, err := d.wda.Locked(ctx); err == nil {
		st["locked"] = strconv.FormatBool(locked)
	}
	if s, err := d.screenInfo(ctx); err == nil {
		st["scale"] = fmt.Sprint(s.scale)
		st["points"] = fmt.Sprintf("%gx%g", s.points[0], s.points[1])
	}
	return st, nil
}

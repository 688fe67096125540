package rig

import (
	"fmt"
	"time"

	"github.com/corral-farm/corral/arm/camera"
	"github.com/corral-farm/corral/nodes/device"
)

var _ device.HealthReporter = (*Driver)(nil)

// cameraCheck is how often a rig tells the farm whether its camera is down: the
// HealthReporter contract asks for a word every few seconds.
const cameraCheck = 2 * time.Second

// ReportHealth tells the farm whether the rig can see and whether its controller answers
// (device.HealthReporter). A rig whose camera is down (its stream refused or stalled, its
// device unplugged) is unhealthy with why, out of free_only lists and refusing tasks (each
// screenshot and look would fail, and an agent handed a blind rig taps blind), until a frame
// comes again; a camera that cannot tell (camera.Downer) is taken as seeing, and reported on
// no tick. A controller found silent while the rig sits idle (watchSilence) is reported at
// once, and again once it answers. The watch ends with the controller's link: a rig without
// it is offline anyway.
func (d *Driver) ReportHealth(report func(error)) {
	cam, seeing := d.cam.(camera.Downer)
	news := make(chan struct{}, 1)
	go d.watchSilence(func() {
		select {
		case news <- struct{}{}:
		default: // news pending already
		}
	})
	go func() {
		var tick <-chan time.Time
		if seeing {
			t := time.NewTicker(cameraCheck)
			defer t.Stop()
			tick = t.C
			report(d.healthNow(cam))
		}
		for {
			select {
			case <-d.arm.Done():
				return
			case <-tick:
			case <-news:
			}
			report(d.healthNow(cam))
		}
	}()
}

// healthNow is what the rig's health check says (Health: its link, its controller's
// silence, halt, alarm), else why it cannot see through cam (nil: it cannot tell): a word
// every few seconds must not hide what the check found.
func (d *Driver) healthNow(cam camera.Downer) error {
	if err := d.ready("health"); err != nil {
		return err
	}
	if cam == nil {
		return nil
	}
	return cameraHealth(cam)
}

// cameraHealth is why a rig cannot see through cam, nil while it can.
func cameraHealth(cam camera.Downer) error {
	err := cam.Down()
	if err == nil {
		return nil
	}
	return fmt.Errorf("camera down: %w: screenshots and looks fail until it sends frames again (check the camera or its app); "+
		"the rig takes no task meanwhile", err)
}

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

// ReportHealth tells the farm whether the rig can see (device.HealthReporter): a rig whose
// camera is down (its stream refused or stalled, its device unplugged) is unhealthy with
// why, out of free_only lists and refusing tasks (each screenshot and look would fail, and an
// agent handed a blind rig taps blind), until a frame comes again. A camera that cannot tell
// (camera.Downer) is taken as seeing. The watch ends with the controller's link: a rig
// without it is offline anyway.
func (d *Driver) ReportHealth(report func(error)) {
	cam, ok := d.cam.(camera.Downer)
	if !ok {
		return
	}
	go func() {
		tick := time.NewTicker(cameraCheck)
		defer tick.Stop()
		for {
			report(d.healthNow(cam))
			select {
			case <-d.arm.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// healthNow is what the rig's health check says (Health: its link, halt, alarm), else why it
// cannot see through cam: a word every few seconds must not hide what the check found.
func (d *Driver) healthNow(cam camera.Downer) error {
	if err := d.ready("health"); err != nil {
		return err
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

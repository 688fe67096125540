package nodes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"sync/atomic"
	"time"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// boundDevice binds a driver to the node's ops: it is what a device actor drives.
type boundDevice struct {
	drv    device.Driver
	ops    tools.Ops
	info   broker.DeviceEntry
	gauges func(map[string]float64) // exports a device.Gauger's gauges; nil: none
	// wipes reset a device.Resetter after each explicit lease (wipe.go), nil for another
	// driver; they outlive the device actor's restarts, as this value does.
	wipes *wiper
	// looks keeps the console's last look at the screen (Screen), across restarts too.
	looks tools.LookCache
	// encoder is the last result's encoder (marshalData), kept for the next call: one task
	// runs at a time, so one is enough (a second at once makes its own).
	encoder atomic.Pointer[dataEncoder]
	// bounds cut the reasons of its troubles to fit its registry entry (entry_bounds.go).
	bounds *entryBounds
	// removed is set as the node lets go of the device (Node.RemoveDevice): no wipe starts
	// after that, its driver's Close takes what the last holder left.
	removed atomic.Bool
}

// The scheduler tells a LeaseWatcher of each lease's grant and end.
var _ actors.LeaseWatcher = (*boundDevice)(nil)

// Leased wipes a device.Resetter once a lease ends (wipe.go), and tells a driver that watches
// leases itself (an elastic browser, web) of the grant and the end.
func (b *boundDevice) Leased(held bool) {
	if b.wipes != nil && !held {
		b.wipes.leaseEnded()
	}
	if w, ok := b.drv.(actors.LeaseWatcher); ok {
		w.Leased(held)
	}
}

func newBoundDevice(drv device.Driver, ops tools.Ops, node string, epoch uint64, metrics *actors.Metrics) *boundDevice {
	i := drv.Info()
	var gauges func(map[string]float64)
	if metrics != nil {
		gauges = func(g map[string]float64) { metrics.SetDeviceGauges(node, i.Serial, g) }
	}
	var wipes *wiper
	if r, ok := drv.(device.Resetter); ok {
		wipes = &wiper{reset: r.Reset, hungAfter: wipeHungAfter}
	}
	return &boundDevice{drv: drv, ops: ops, gauges: gauges, wipes: wipes, info: broker.DeviceEntry{
		V: broker.WireVersion, Serial: i.Serial, Platform: i.Platform, Model: i.Model, Brand: i.Brand,
		Release: i.Release, SDK: i.SDK, Tags: i.Tags, Extra: i.Extra, Node: node, Epoch: epoch,
	}}
}

// Info returns the device's registry entry (state is the scheduler's to fill).
func (b *boundDevice) Info() broker.DeviceEntry { return b.info }

// Deadline returns the tool's default deadline, or the asked one within the tool's cap.
func (b *boundDevice) Deadline(tool string, askedMS int64) (time.Duration, error) {
	op, ok := b.ops[tool]
	if !ok {
		return 0, fmt.Errorf("node does not know tool %q; the gateway and node versions may differ", tool)
	}
	if askedMS <= 0 {
		return op.Timeout, nil
	}
	asked := time.Duration(askedMS) * time.Millisecond
	if asked > op.MaxTimeout {
		return 0, fmt.Errorf("timeout_ms %d is above %s's cap of %d ms; ask for less", askedMS, tool, op.MaxTimeout.Milliseconds())
	}
	return asked, nil
}

// Execute runs the op of the task's tool and encodes its output, naming the task's secrets so
// that its record does not keep them.
func (b *boundDevice) Execute(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) broker.TaskResult {
	if b.wipes != nil {
		if err := b.wipes.begin(ctx); err != nil {
			return b.notWiped(ctx, req.Tool, err)
		}
		defer b.wipes.end()
	}
	op := b.ops[req.Tool]
	res := b.execute(ctx, op, req, progress)
	if op.Secrets != nil {
		res.Secrets = op.Secrets(req.Args)
	}
	b.exportGauges()
	return res
}

// notWiped answers a task that did not run for the wipe after a lease: its deadline passed
// while it waited (timed out: the device is fine), or the wipe failed (unhealthy).
func (b *boundDevice) notWiped(ctx context.Context, tool string, err error) broker.TaskResult {
	if errors.Is(err, errStillWiping) {
		return b.pastDeadline(ctx, tool, broker.TaskResult{Outcome: broker.OutcomeFailed,
			Error: fmt.Sprintf("device %s: %v", b.info.Serial, err)})
	}
	return broker.TaskResult{Outcome: broker.OutcomeFailed, Code: broker.CodeUnhealthy,
		Error: fmt.Sprintf("device %s: wiping what its last holder left failed, so no task runs on it until a reset succeeds (each task tries again): %v", b.info.Serial, err)}
}

// exportGauges exports what the driver measures of itself, if it does.
func (b *boundDevice) exportGauges() {
	if g, ok := b.drv.(device.Gauger); ok && b.gauges != nil {
		b.gauges(g.Gauges())
	}
}

func (b *boundDevice) execute(ctx context.Context, op tools.Op, req broker.TaskRequest, progress func(broker.Progress)) broker.TaskResult {
	t := &tools.Task{ID: req.ID, Driver: b.drv, Args: req.Args, TimeoutMS: req.TimeoutMS, Progress: func(done, total float64, msg string) {
		if progress != nil {
			progress(broker.Progress{TaskID: req.ID, Progress: done, Total: total, Message: msg})
		}
	}}
	out, err := op.Run(ctx, t)
	if err != nil {
		code := tools.ErrorCode(err)
		outcome := broker.OutcomeFailed
		if (code == broker.CodeBadInput || code == broker.CodeUnsupported || code == broker.CodeUnconfigured || code == broker.CodeUnhealthy) && !tools.PartlyRan(err) {
			outcome = broker.OutcomeRefused
		}
		res := broker.TaskResult{Outcome: outcome, Code: code, Error: fmt.Sprintf("device %s: %v", b.info.Serial, err), OwnSetup: ownSetup(code, err)}
		if ue, ok := errors.AsType[*tools.UnrecordedError](err); ok { // words only its caller may read
			res.ErrorUnrecorded = &broker.Unrecorded{Text: ue.Error(), Instead: ue.Instead}
		}
		return b.pastDeadline(ctx, req.Tool, res)
	}
	res := broker.TaskResult{Outcome: broker.OutcomeSucceeded, Text: out.Text}
	if out.Data != nil {
		data, err := b.marshalData(out.Data)
		if err != nil {
			return broker.TaskResult{Outcome: broker.OutcomeFailed, Code: broker.CodeDriver, Error: fmt.Sprintf("encode result: %v", err)}
		}
		res.Data = data
	}
	if out.Record != nil { // what the record keeps of a result only its caller may read
		if res.RecordData, err = b.marshalData(out.Record); err != nil {
			return broker.TaskResult{Outcome: broker.OutcomeFailed, Code: broker.CodeDriver, Error: fmt.Sprintf("encode result: %v", err)}
		}
	}
	if out.JPEG != nil {
		res.Image, res.ImageType = out.JPEG, "image/jpeg"
	}
	if out.PNG != nil {
		res.Image, res.ImageType = out.PNG, "image/png"
	}
	if out.Image != nil && !deadlinePassed(ctx) { // an image too late for its task is not encoded
		jpg, err := encodeJPEG(ctx, out.Image)
		if err != nil {
			return b.pastDeadline(ctx, req.Tool, broker.TaskResult{Outcome: broker.OutcomeFailed, Code: broker.CodeDriver, Error: fmt.Sprintf("device %s: %v", b.info.Serial, err)})
		}
		res.Image, res.ImageType = jpg, "image/jpeg"
	}
	if out.Failure != nil { // a result that is a failure all the same (an agent task short of its goal)
		res.Outcome, res.Code = tools.FailureOutcome(out.Failure)
		res.Error = fmt.Sprintf("device %s: %v", b.info.Serial, out.Failure)
	}
	return b.pastDeadline(ctx, req.Tool, res)
}

// pastDeadline is res, timed_out if the task's deadline passed before it came (SCHEDULER.md
// rule 6): a late success is no success, and a driver's error then is most likely the deadline
// seen first by a timer of its own (an adb dial's: "i/o timeout"). It keeps what res carries
// (an agent's partial report), as the scheduler does when ctx's timer comes first.
func (b *boundDevice) pastDeadline(ctx context.Context, tool string, res broker.TaskResult) broker.TaskResult {
	if !deadlinePassed(ctx) || res.Outcome == broker.OutcomeTimedOut {
		return res
	}
	if res.Outcome == broker.OutcomeSucceeded {
		res.Error = fmt.Sprintf("device %s: %s answered after the task's deadline", b.info.Serial, tool)
	}
	res.Outcome, res.Code, res.OwnSetup = broker.OutcomeTimedOut, "", false
	return res
}

// deadlinePassed says whether the task's deadline has passed, whether or not ctx's timer has
// ended ctx yet: a driver whose own timer fired first answers a moment before ctx says so.
func deadlinePassed(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d) || errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// encodeJPEG is tools.EncodeJPEG that answers ctx's error once ctx is done. The encoder stops
// too, a few rows later (an image that is not RGBA, strip by strip): it goes on alone till then
// and its JPEG is dropped. A screenshot's takes seconds under the race detector on a loaded
// machine, past the grace a cancelled driver has to return.
func encodeJPEG(ctx context.Context, img image.Image) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type encoded struct {
		jpg []byte
		err error
	}
	done := make(chan encoded, 1)
	go func() {
		jpg, err := tools.EncodeJPEG(ctx, img, tools.MaxImageBytes)
		done <- encoded{jpg, err}
	}()
	select {
	case e := <-done:
		return e.jpg, e.err
	case <-ctx.Done():
		return nil, fmt.Errorf("encode the screenshot: %w", ctx.Err())
	}
}

// ownSetup says whether a refusal coded code is for what this one device lacks, by how it was
// set up (unsupported) or configured on this node (unconfigured), rather than for what its
// driver or its whole node lacks: the gateway then offers other devices of its platform and node.
func ownSetup(code string, err error) bool {
	return code == broker.CodeUnsupported && errors.Is(err, device.ErrUnsupported) ||
		code == broker.CodeUnconfigured && errors.Is(err, device.ErrNotConfigured)
}

// Health asks the driver, if it can tell. A device being wiped after a lease is not asked: the
// wipe has its own bound, and one that fails is told to the next task; one that does not return
// long after that bound is a driver that hangs.
func (b *boundDevice) Health(ctx context.Context) error {
	if b.wipes != nil {
		if busy, hung := b.wipes.state(); hung != nil {
			return hung
		} else if busy {
			return nil
		}
	}
	if h, ok := b.drv.(device.HealthChecker); ok {
		return b.bounds.reason(b.info.Serial, h.Health(ctx))
	}
	return nil
}

// marshalData encodes a result without escaping <, > and & (UI sources are XML: escaping
// would make them up to six times larger on the wire). Its encoder and buffer are kept for
// the next result (every call has one): the copy out is the one allocation of its bytes.
func (b *boundDevice) marshalData(v any) (json.RawMessage, error) {
	e := b.encoder.Swap(nil)
	if e == nil {
		e = &dataEncoder{}
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetEscapeHTML(false)
	}
	e.buf.Reset()
	var data json.RawMessage
	err := e.enc.Encode(v)
	if err == nil {
		data = bytes.Clone(bytes.TrimRight(e.buf.Bytes(), "\n"))
	}
	if e.buf.Cap() <= maxKeptEncoderBuffer { // a UI source's megabytes are not kept
		b.encoder.Store(e)
	}
	return data, err
}

// maxKeptEncoderBuffer is the largest result buffer kept for the next call.
const maxKeptEncoderBuffer = 64 << 10

type dataEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// Package vision is the contract between the nodes and the vision workers (`corral vision`):
// the NATS subjects, the requests and answers of each operation, and a Client that a node's
// tools call. It links no cgo: the worker, which does (gocv, gosseract), lives in
// vision/worker behind the `vision` build tag, so gateways and nodes keep CGO_ENABLED=0.
//
// Workers serve the nats micro service corral-vision in one queue group: N workers share the
// load, and a request that a worker dies in is retried on another within its deadline. A worker
// that hangs with a request (it no longer answers the micro PING) loses it to one that answers
// within hungCheckEvery and the ping's bound, and the client passes it over, sending to the
// others' own subjects (DirectSubject), until it answers a ping again. A worker that answers its
// ping is only slow: its call is sent again to no one (hung.go; docs/vision.md).
package vision

// Package vision is the contract between the nodes and the vision workers (`corral vision`):
// the NATS subjects, the requests and answers of each operation, and a Client that a node's
// tools call. It links no cgo: the worker, which does (gocv, gosseract), lives in
// vision/worker behind the `vision` build tag, so gateways and nodes keep CGO_ENABLED=0.
//
// Workers serve the nats micro service corral-vision in one queue group: N workers share the
// load, and a request that a worker dies in is retried on another within its deadline.
package vision

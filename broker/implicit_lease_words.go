package broker

// ImplicitLeaseWords says what holds a device busy with a task run without a lease, in the
// node's and the gateway's refusals alike: its one-task lease is no lease list_leases lists
// (a refusal that sent the caller there had them find nothing), and it ends with the task.
const ImplicitLeaseWords = "runs without a lease (a one-task lease that ends with it; list_leases lists none)"

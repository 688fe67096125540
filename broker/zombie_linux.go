package broker

import (
	"bytes"
	"os"
	"strconv"
)

// zombie says whether process pid has ended but not yet been reaped by its parent: signal 0
// still reaches it, yet it holds nothing. A node killed with -9 stays one until its parent
// waits for it, which a slow init or a supervisor that is itself stopping may put off.
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "pid (comm) state …": comm may hold spaces and parentheses, so the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

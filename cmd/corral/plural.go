package main

import "fmt"

// counted is n with the word for one or for many: "1 device", "3 devices".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

package app

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseProfileVUs reads a profile's VU counts, comma-separated (sledge
// profile --vu 1,2,4,8), and checks them (CheckProfileVUs).
func ParseProfileVUs(list string) ([]int, error) {
	var vus []int
	for _, part := range strings.Split(list, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", strings.TrimSpace(part))
		}
		vus = append(vus, v)
	}
	return vus, CheckProfileVUs(vus)
}
